"""The calling bot itself, and the server's health check (no token)."""

from django.http import HttpRequest
from ninja import Router
from ninja.responses import Status

from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import HealthOut, MeOut
from memstore.calls.health import bot_get, server_health
from memstore.vocabulary import GRANTS

router = Router(tags=["bot"])


@router.get(
    "/health",
    auth=None,
    response={200: HealthOut, 503: HealthOut},
    operation_id="health",
    url_name="health",
)
def health(request: HttpRequest):
    """Can this server answer? The database (503 while it is down: take the server out of the
    load balancer), the memory volume (`degraded` while full or read-only: reads still work)
    and the learning queue's backlog. No token."""
    answer = HealthOut.of(server_health())
    return Status(503 if answer.status == "unavailable" else 200, answer)


@router.get("/me", response={200: MeOut, **errors(401)}, operation_id="whoami", url_name="whoami")
def whoami(request: HttpRequest):
    """Which bot this token acts as, what the token may do, and the projects it has joined
    (those it may only read listed again)."""
    caller = request.auth  # type: ignore[attr-defined]
    bot = bot_get(slug=caller.bot)
    return MeOut(
        bot=bot.slug,
        display_name=bot.display_name,
        in_groups=bot.in_groups,
        projects=list(bot.projects),
        grants=[grant for grant in GRANTS if grant in caller.scopes],
        read_only_projects=list(bot.read_only),
    )
