"""Console URLs."""

from django.urls import path

from memoryconsole.web import views

app_name = "web"
urlpatterns = [
    path("", views.status_page, name="status"),
]
