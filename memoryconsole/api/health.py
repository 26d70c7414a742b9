"""The health of a bot's memory: what looks wrong (junk, duplicates, contradictions, unused,
secrets, over-long lines) and one-call fixes through the ordinary write path."""

from typing import Literal

from django.http import HttpRequest
from ninja import Header, Router
from pydantic import Field

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import FACT_ID, ContextHeaders, FactOut, Out, StrictIn
from memstore.upkeep.health import KINDS, HealthReport, bot_health, bot_health_fix

router = Router(tags=["health"])

Kind = Literal["secret", "contradiction", "duplicate", "junk", "too_long", "unused"]
assert set(Kind.__args__) == set(KINDS)  # type: ignore[attr-defined]


class FindingOut(Out):
    kind: Kind
    why: str
    fact: FactOut
    other: FactOut | None = Field(None, description="The other fact of a duplicate or conflict.")
    fixes: list[str] = Field(description="What POST /health/memory/fix accepts for it.")


class MemoryHealthOut(Out):
    facts: int = Field(description="Facts looked at: those this bot may change from this room.")
    counts: dict[str, int]
    findings: list[FindingOut]

    @staticmethod
    def of(report: HealthReport) -> "MemoryHealthOut":
        return MemoryHealthOut(
            facts=report.facts,
            counts=report.counts,
            findings=[
                FindingOut(
                    kind=f.kind,  # type: ignore[arg-type]
                    why=f.why,
                    fact=FactOut.of(f.fact),
                    other=FactOut.of(f.other) if f.other else None,
                    fixes=list(f.fixes),
                )
                for f in report.findings
            ],
        )


class FixIn(StrictIn):
    action: Literal["archive", "merge", "erase"] = Field(
        description="archive: forget (restorable); merge: archive `id`, keep `keep` and link it "
        "(supersedes); erase: forget and blank the text in history (for secrets)."
    )
    id: str = Field(pattern=FACT_ID)
    keep: str | None = Field(None, pattern=FACT_ID, description="merge: the fact to keep.")


class FixOut(Out):
    changed: int = Field(description="Fact lines changed.")


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
