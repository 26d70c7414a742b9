"""The calling bot itself, and a health check that needs nothing."""

from django.http import HttpRequest
from ninja import Router

from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import HealthOut, MeOut
from memstore.registry.bots import bot_get

router = Router(tags=["bot"])


@router.get("/health", auth=None, response=HealthOut, operation_id="health", url_name="health")
def health(request: HttpRequest):
    """Is the API up? No token, no database."""
    return HealthOut(status="ok")


@router.get("/me", response={200: MeOut, **errors(401)}, operation_id="whoami", url_name="whoami")
def whoami(request: HttpRequest):
    """Which bot this token acts as, and the projects it has joined."""
    bot = bot_get(slug=request.auth.bot)  # type: ignore[attr-defined]
    return MeOut(
        bot=bot.slug,
        display_name=bot.display_name,
        in_groups=bot.in_groups,
        projects=list(bot.projects),
    )
