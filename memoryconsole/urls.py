"""URL map: the console at /, the bots' API under /api/ (v1 operations, docs at /api/docs), MCP
at /mcp, Prometheus metrics at /metrics."""

from django.urls import include, path

from memoryconsole.mcp.http import mcp_endpoint
from memoryconsole.metrics import metrics_view

urlpatterns = [
    path("api/", include("memoryconsole.api.urls", namespace="api")),
    path("mcp", mcp_endpoint, name="mcp"),
    path("metrics", metrics_view, name="metrics"),
    path("", include("memoryconsole.web.urls")),
]

handler500 = "memoryconsole.web.errors.server_error"
