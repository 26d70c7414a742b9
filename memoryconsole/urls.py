"""URL map: the console at /, the bots' API under /api/v1/ (docs at /api/docs), MCP at /mcp."""

from django.urls import include, path, re_path

from memoryconsole.api import api
from memoryconsole.api.errors import api_not_found, json_method_errors
from memoryconsole.mcp.http import mcp_endpoint

urlpatterns = [
    path("api/", json_method_errors(api.urls)),
    re_path(r"^api/(?P<rest>.*)$", api_not_found),
    path("mcp", mcp_endpoint, name="mcp"),
    path("", include("memoryconsole.web.urls")),
]
