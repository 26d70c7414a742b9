"""The bots' API: django-ninja under /api/v1/, OpenAPI at /api/openapi.json, docs at /api/docs.

Authentication is a bearer token per bot (`auth.BotToken`); every memory call states its room in
headers (`schemas.ContextHeaders`); every error goes through the one map in `errors`. Handlers
are thin: they parse, call one memstore function, and shape the answer.
"""

from ninja import NinjaAPI

from memoryconsole.api import bots, exchanges, facts, recall
from memoryconsole.api.auth import BotToken
from memoryconsole.api.errors import install_error_map

DESCRIPTION = """\
Long-term memory for bots. Send `Authorization: Bearer <token>` and, on every memory call, the
room you are talking in: `X-Room-Id`, `X-Room-Kind` (direct, group, routine, bot, event),
`X-Person` (direct rooms) and `X-Projects` (up to 3, comma-separated). The server decides what
that room may read and write. Errors are JSON `{code, message, detail}`.
"""

api = NinjaAPI(
    title="Memory Console API",
    version="1",
    description=DESCRIPTION,
    auth=BotToken(),
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
)
install_error_map(api)
for module in (bots, facts, recall, exchanges):
    api.add_router("/v1/", module.router)
