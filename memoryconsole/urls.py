"""URL map: the console at /, the bots' API under /api/ (v1 operations, docs at /api/docs)."""

from django.urls import include, path

urlpatterns = [
    path("api/", include("memoryconsole.api.urls", namespace="api")),
    path("", include("memoryconsole.web.urls")),
]
