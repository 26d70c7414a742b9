"""URL map: the console at /, the bots' API under /api/ (v1 operations, docs at /api/docs), MCP
at /mcp with its OAuth endpoints (metadata under /.well-known/, the rest under /oauth/; the
consent page is a console page), Prometheus metrics at /metrics."""

from django.urls import include, path

from memoryconsole.mcp import oauth
from memoryconsole.mcp.http import mcp_endpoint
from memoryconsole.metrics import metrics_view
from memoryconsole.web.views.consent import authorize_page

urlpatterns = [
    path("api/", include("memoryconsole.api.urls", namespace="api")),
    path("mcp", mcp_endpoint, name="mcp"),
    path("metrics", metrics_view, name="metrics"),
    path(".well-known/oauth-protected-resource", oauth.protected_resource),
    path(".well-known/oauth-protected-resource/mcp", oauth.protected_resource),
    path(".well-known/oauth-authorization-server", oauth.authorization_server),
    path("oauth/register", oauth.register, name="oauth_register"),
    path("oauth/authorize", authorize_page, name="oauth_authorize"),
    path("oauth/token", oauth.token, name="oauth_token"),
    path("oauth/revoke", oauth.revoke, name="oauth_revoke"),
    path("", include("memoryconsole.web.urls")),
]

handler500 = "memoryconsole.web.errors.server_error"
