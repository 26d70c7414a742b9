"""Which memories shaped a reply: what a bot was served, and per reported exchange what was
*retrieved*, *injected* and *cited*, kept as three separate records, never merged.

- A prompt section served to a bot in a room is kept as its digest and fact ids
  (`prompt_served`, one upsert), for SOURCES_KEEP_DAYS (7): an exchange reported later than
  that finds nothing injected.
- A recall answer is kept as its fact ids (`recall_served`, one insert). It counts as
  *retrieved* for the next exchange the same bot reports in the same room within
  SOURCES_RECALL_WINDOW_SECONDS (600: a reply that takes longer than ten minutes after its
  recall is rare, and a longer window would credit an earlier turn's recall), and only since
  the exchange reported before it (that one's recalls were its own). Kept no longer.
- Reporting an exchange (`sources_record`, inside its transaction) copies the facts of the
  section named by its digest (none given: the last section served to that bot in that room)
  as *injected*, the recalls in the window as *retrieved*, and resolves `recalled` (ids or
  texts) against the room's readable scopes as *cited*; then drops what is past keeping
  (`sources_prune`, also run daily by the upkeep tick).

Rows hold scopes and fact identities only, never text. Does not: decide who sees an
exchange's sources (`memstore.console.sources`) or erase (`memstore.privacy`).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from memstore.errors import InvalidExchange
from memstore.facts.markdown import fact_identity
from memstore.facts.records import StoredFact
from memstore.models import Exchange, ExchangeSource, Fact, ServedPrompt, ServedRecall
from memstore.rooms.access import Context, readable_scopes
from memstore.vocabulary import FACT_ID_PATTERN

_ID_RE = re.compile(FACT_ID_PATTERN)
DIGEST_PATTERN = r"[0-9a-f]{16}"  # a prompt section's digest (`memstore.prompt.answer`)
_DIGEST_RE = re.compile(DIGEST_PATTERN)


@dataclass(frozen=True, slots=True)
class SourceCounts:
    """How many facts an exchange's report recorded in each role, the section digest it used
    (given or the last served), and a note when a given digest was not found."""

    retrieved: int = 0
    injected: int = 0
    cited: int = 0
    digest: str = ""
    note: str = ""


def _refs(facts: Iterable[StoredFact]) -> list[str]:
    return sorted({f"{fact.scope} {fact.fact_id}" for fact in facts})


def digest_check(digest: str) -> None:
    """Refuse a digest that is not one a prompt answer could carry (InvalidExchange)."""
    if digest and not (isinstance(digest, str) and _DIGEST_RE.fullmatch(digest)):
        raise InvalidExchange(
            f"digest {digest!r} is not a prompt section's digest: send the 16 hex digits the "
            "prompt answer's `digest` carried, or none."
        )


# Raw statements: one round trip each, without building model instances on a read's path.
_SERVED_PROMPT = """
INSERT INTO memstore_servedprompt (bot, room_id, digest, facts, served_at)
VALUES (%s, %s, %s, %s::varchar[], now())
ON CONFLICT (bot, room_id, digest) DO UPDATE SET served_at = EXCLUDED.served_at
"""
_SERVED_RECALL = """
INSERT INTO memstore_servedrecall (bot, room_id, facts, at) VALUES (%s, %s, %s::varchar[], now())
"""


def _record(statement: str, params: list) -> None:
    # A read's record is not worth a WAL flush: outside a transaction the statement is its own,
    # and its commit returns without waiting for the disk (a crash may lose the last records;
    # nothing else). Inside one, the caller's transaction decides.
    if not connection.in_atomic_block:
        statement = f"WITH w AS ({statement}) SELECT set_config('synchronous_commit', 'off', true)"
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def prompt_served(*, bot: str, room_id: str, digest: str, facts: Iterable[StoredFact]) -> None:
    """Keep a served section's digest and fact ids (one statement; a re-serve moves its time)."""
    _record(_SERVED_PROMPT, [bot, room_id, digest, _refs(facts)])


def recall_served(*, bot: str, room_id: str, facts: Iterable[StoredFact]) -> None:
    """Keep the fact ids a recall returned (one insert; nothing when it found nothing)."""
    if refs := _refs(facts):
        _record(_SERVED_RECALL, [bot, room_id, refs])


def sources_record(
    *, ctx: Context, exchange_id: int, digest: str = "", cited: Iterable[str] = ()
) -> SourceCounts:
    """Record what was retrieved, injected and cited for this newly stored exchange."""
    now = timezone.now()
    bot, room = ctx.bot, ctx.room.id
    sections = ServedPrompt.objects.filter(
        bot=bot, room_id=room, served_at__gte=now - timedelta(days=settings.SOURCES_KEEP_DAYS)
    )
    section = (
        sections.filter(digest=digest) if digest else sections.order_by("-served_at")
    ).first()
    note = ""
    if digest and section is None:
        note = (
            f"No prompt section with digest {digest} was served to {bot} in room {room} in the "
            f"last {settings.SOURCES_KEEP_DAYS} days: nothing is recorded as injected."
        )
    rows = [(ExchangeSource.INJECTED, ref) for ref in (section.facts if section else [])]
    rows += [(ExchangeSource.RETRIEVED, ref) for ref in _retrieved(bot, room, exchange_id, now)]
    rows += [(ExchangeSource.CITED, ref) for ref in _cited(ctx, cited)]
    ExchangeSource.objects.bulk_create(
        [
            ExchangeSource(exchange_id=exchange_id, role=role, scope_key=scope, fact_id=fact_id)
            for role, (scope, _, fact_id) in ((r, ref.rpartition(" ")) for r, ref in rows)
        ],
        ignore_conflicts=True,
    )
    sources_prune(now)
    counts = sources_counts(exchange_id=exchange_id)
    return SourceCounts(**counts, digest=section.digest if section else digest, note=note)


def sources_counts(*, exchange_id: int) -> dict[str, int]:
    """How many facts of each role an exchange has recorded."""
    found = dict(
        ExchangeSource.objects.filter(exchange_id=exchange_id)
        .values_list("role")
        .annotate(n=Count("id"))
        .values_list("role", "n")
    )
    return {role: found.get(role, 0) for role in ExchangeSource.ROLES}


def _retrieved(bot: str, room: str, exchange_id: int, now) -> set[str]:
    since = now - timedelta(seconds=settings.SOURCES_RECALL_WINDOW_SECONDS)
    before = (
        Exchange.objects.filter(bot=bot, room_id=room, created_at__gt=since)
        .exclude(pk=exchange_id)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    recalls = ServedRecall.objects.filter(
        bot=bot, room_id=room, at__gte=max(since, before or since)
    )
    return {ref for facts in recalls.values_list("facts", flat=True) for ref in facts}


def _cited(ctx: Context, cited: Iterable[str]) -> set[str]:
    """`recalled` ids or texts as "scope fact_id", found among the room's readable scopes as
    the index stands (the reads before the reply synced them); one not found keeps no scope."""
    ids = {item if _ID_RE.fullmatch(item) else fact_identity(item) for item in cited if item}
    if not ids:
        return set()
    keys = [str(scope) for scope in readable_scopes(ctx)]
    found = set(
        Fact.objects.filter(fact_id__in=ids, scope_key__in=keys).values_list("scope_key", "fact_id")
    )
    located = {fact_id for _, fact_id in found}
    return {f"{scope} {fact_id}" for scope, fact_id in found} | {
        f" {fact_id}" for fact_id in ids - located
    }


def sources_prune(now=None) -> None:
    """Drop served sections past SOURCES_KEEP_DAYS and recalls past the window, workspace-wide
    (an indexed range delete): on every report (not on a read's path) and daily on UPKEEP_CRON
    (so rooms that never report stay bounded too)."""
    now = now or timezone.now()
    ServedPrompt.objects.filter(
        served_at__lt=now - timedelta(days=settings.SOURCES_KEEP_DAYS)
    ).delete()
    ServedRecall.objects.filter(
        at__lt=now - timedelta(seconds=settings.SOURCES_RECALL_WINDOW_SECONDS)
    ).delete()
