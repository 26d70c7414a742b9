"""URL map: the console at /, the bots' API under /api/v1/."""

from django.urls import include, path

urlpatterns = [
    path("", include("memoryconsole.web.urls")),
]
