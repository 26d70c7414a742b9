"""URL map: the console at /, the bots' API under /api/v1/ (docs at /api/docs)."""

from django.urls import include, path, re_path

from memoryconsole.api import api
from memoryconsole.api.errors import api_not_found, json_method_errors

urlpatterns = [
    path("api/", json_method_errors(api.urls)),
    re_path(r"^api/(?P<rest>.*)$", api_not_found),
    path("", include("memoryconsole.web.urls")),
]
