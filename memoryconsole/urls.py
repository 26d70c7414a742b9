"""URL map: the console at /, the bots' API under /api/ (v1 operations, docs at /api/docs), MCP
at /mcp."""

from django.urls import include, path

from memoryconsole.mcp.http import mcp_endpoint

urlpatterns = [
    path("api/", include("memoryconsole.api.urls", namespace="api")),
    path("mcp", mcp_endpoint, name="mcp"),
    path("", include("memoryconsole.web.urls")),
]

handler500 = "memoryconsole.web.errors.server_error"
