"""The health of a bot's memory: what looks wrong (junk, duplicates, contradictions, unused,
secrets, over-long lines) and one-call fixes through the ordinary write path."""

from django.http import HttpRequest
from ninja import Header, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import ContextHeaders
from memoryconsole.api.schemas.health import FixIn, FixOut, Kind, MemoryHealthOut
from memstore.calls.health import KINDS, bot_health, bot_health_fix

router = Router(tags=["health"])
assert set(Kind.__args__) == set(KINDS)  # type: ignore[attr-defined]


@router.get(
    "/health/memory",
    response={200: MemoryHealthOut, **errors(401, 403, 409, 422)},
    operation_id="memory_health",
    url_name="memory_health",
)
def memory_health(request: HttpRequest, room: Header[ContextHeaders]):
    """What looks wrong in the memory this bot may change from this room."""
    return MemoryHealthOut.of(bot_health(ctx=context_of(request, room)))


@router.post(
    "/health/memory/fix",
    response={200: FixOut, **errors(400, 401, 403, 404, 409, 422)},
    operation_id="memory_health_fix",
    url_name="memory_health_fix",
)
def memory_health_fix(request: HttpRequest, room: Header[ContextHeaders], body: FixIn):
    """Fix one finding through the ordinary write path (as this bot, via=api)."""
    changed = bot_health_fix(
        ctx=context_of(request, room), action=body.action, fact_id=body.id, other_id=body.keep
    )
    return FixOut(changed=changed)
