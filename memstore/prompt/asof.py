"""What a bot knew on a date (issue 11): its facts and its prompt section as of the end of a
day (UTC), replayed from the shards' history (`memstore.facts.history`), not from the index.

History records every change, hand edits included (noticed at the next sync), so a fact edited
since shows its old text, a forgotten one is still there, and one saved later is not. Notes are
taken from their versions (`memstore.prompt.notes.note_as_of`).

Does not: change anything, or read the index (the files' history is the record).
"""

from collections.abc import Iterable
from datetime import UTC, date, datetime, time

from memstore.calls.actions import readable_scope
from memstore.facts.history import copies_as_of, history_read
from memstore.facts.markdown import parse_line
from memstore.facts.paging import Page
from memstore.facts.paths import Scope, ScopeKind, locate, memory_root, scope_shards
from memstore.facts.ranking import derived
from memstore.facts.records import StoredFact
from memstore.models import Bot
from memstore.prompt.section import (
    BlockInput,
    PromptSection,
    blocks_withheld,
    prompt_budgets,
    prompt_scopes,
    section_compose,
)
from memstore.rooms.access import Context, readable_scopes, visible, withholding_of


def day_end(day: date) -> datetime:
    """The last moment of a day, UTC: "as of 2026-11-03" includes everything saved that day."""
    return datetime.combine(day, time.max, UTC)


def facts_as_of(*, scopes: Iterable[Scope], day: date) -> list[StoredFact]:
    """Every fact line these scopes held at the end of `day`, one per file that held it."""
    root = memory_root()
    found: list[StoredFact] = []
    for scope in scopes:
        for shard in scope_shards(root, scope):
            copies = copies_as_of(history_read(root, shard), day_end(day))
            for (file, fact_id), line in sorted(copies.items()):
                fact, location = parse_line(line), locate(file)
                if fact is None or location is None:
                    continue
                text, tier, _, rank, visibility = derived(location.tier_file, fact)
                found.append(
                    StoredFact(
                        fact_id=fact_id,
                        day=fact.day,
                        text=text,
                        tier=tier,
                        scope=str(scope),
                        shard_bot=shard.bot,
                        file=file,
                        rank=rank,
                        visibility=visibility,
                        meta=dict(fact.meta or {}),
                    )
                )
    return found


def bot_facts_as_of(
    *,
    ctx: Context,
    day: date,
    scope: ScopeKind | None = None,
    project: str | None = None,
    tier: str | None = None,
    month: str | None = None,
    contains: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[StoredFact]:
    """The facts this room could read at the end of `day`, newest first (hidden ones never;
    private ones in direct rooms only; what a read withholds now, never), filtered and paged like
    the live list."""
    rule = withholding_of(ctx)
    seen = visible(ctx) - ({"private"} if rule.paused else set())
    scopes = [readable_scope(ctx, scope, project)] if scope else readable_scopes(ctx)
    facts = [
        f
        for f in rule.shown(facts_as_of(scopes=scopes, day=day))
        if f.visibility in seen
        and (not tier or f.tier == tier)
        and (not month or f.day.isoformat().startswith(month))
        and (not contains or contains.lower() in f.text.lower())
    ]
    facts.sort(key=lambda f: (-f.day.toordinal(), -f.rank, f.fact_id))
    return Page(items=facts[offset : offset + limit], total=len(facts), offset=offset, limit=limit)


def prompt_as_of(*, ctx: Context, day: date) -> PromptSection:
    """The memory section this bot would have had in this room at the end of `day` (less what a
    read withholds now: a topic excluded since is withheld from the past too)."""
    budgets = prompt_budgets()
    rule = withholding_of(ctx)
    private = "private" in visible(ctx) and not rule.paused
    inputs = [
        BlockInput(
            kind=kind,
            name=scope.name,
            facts=facts_as_of(scopes=[scope], day=day),
            private=private,
        )
        for kind, scope in prompt_scopes(ctx)
    ]
    inputs = blocks_withheld(inputs, rule)
    team_wide = Bot.objects.filter(slug=ctx.bot, in_groups=True).exists()
    return section_compose(inputs=inputs, budgets=budgets, team_wide=team_wide)
