"""What a bot knew on a date: its facts and its prompt section as of the end of a
day (UTC), replayed from the shards' history (`memstore.facts.history`), not from the index.

History records every change, hand edits included (noticed at the next sync), so a fact edited
since shows its old text, a forgotten one is still there, and one saved later is not. Notes are
taken from their versions (`memstore.prompt.notes.note_as_of`).

Before history: lines that were in a file when the index first saw it (the file's first
recorded batch, all hand-edit adds) and lines history never mentions (a store indexed by
`reindex`, which records nothing) count as known from their own date, not from the day the
index noticed them: a store of facts dated months back was known then. `history_start` says
from when the record itself runs.

Does not: change anything, or read the index (the files' history is the record).
"""

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, date, datetime, time
from pathlib import Path

from memstore.errors import UnreadableFile
from memstore.facts.files import decode, read_bytes
from memstore.facts.history import Change, copies_as_of, history_read
from memstore.facts.markdown import parse_line, parse_text
from memstore.facts.paging import Page
from memstore.facts.paths import (
    Scope,
    ScopeKind,
    Shard,
    locate,
    memory_root,
    scope_shards,
    shard_files,
)
from memstore.facts.ranking import derived
from memstore.facts.records import StoredFact
from memstore.models import Bot
from memstore.prompt.compose import BlockInput, PromptSection, section_compose
from memstore.prompt.section import blocks_withheld, prompt_budgets, prompt_scopes, prompt_shape
from memstore.rooms.access import (
    Context,
    readable_scope,
    readable_scopes,
    visible,
    withholding_of,
)
from memstore.store.selectors import FactsPage


def day_end(day: date) -> datetime:
    """The last moment of a day, UTC: "as of 2026-11-03" includes everything saved that day."""
    return datetime.combine(day, time.max, UTC)


def facts_as_of(*, scopes: Iterable[Scope], day: date) -> list[StoredFact]:
    """Every fact line these scopes held at the end of `day`, one per file that held it."""
    root = memory_root()
    found: list[StoredFact] = []
    for scope in scopes:
        for shard in scope_shards(root, scope):
            copies = copies_as_of(shard_record(root, shard), day_end(day))
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


def shard_record(root: Path, shard: Shard) -> list[Change]:
    """A shard's history as "as of" replays it: lines first seen in their file's first batch
    dated back to their own day, and lines history never mentions added on theirs."""
    changes = history_read(root, shard)
    first: dict[str, str] = {}
    for change in changes:
        if change.file not in first or change.at < first[change.file]:
            first[change.file] = change.at
    dated = [
        replace(change, at=min(change.at, _day_start(change.line)))
        if change.op == "add" and change.via == "hand-edit" and change.at == first[change.file]
        else change
        for change in changes
    ]
    mentioned = {(c.file, c.fact_id) for c in changes} | {(c.file, c.old_fact_id) for c in changes}
    for file in shard_files(root, shard):
        for fact_id, line in _file_facts(root / file):
            if (file, fact_id) not in mentioned:
                dated.append(
                    Change(op="add", file=file, fact_id=fact_id, line=line, at=_day_start(line))
                )
    return dated


def history_start(*, scopes: Iterable[Scope]) -> datetime | None:
    """When the first change these scopes' history records was made (None: no history yet)."""
    root = memory_root()
    stamps = [
        change.at
        for scope in scopes
        for shard in scope_shards(root, scope)
        for change in history_read(root, shard)
    ]
    return datetime.fromisoformat(min(stamps)) if stamps else None


def _day_start(line: str) -> str:
    fact = parse_line(line)
    if fact is None:
        return "9999"  # not a fact line: never earlier than its record
    return datetime.combine(fact.day, time.min, UTC).isoformat(timespec="microseconds")


def _file_facts(path: Path) -> list[tuple[str, str]]:
    try:
        data, _ = read_bytes(path)
        lines = parse_text(decode(data, path))
    except (OSError, UnreadableFile):
        return []  # unreadable now: what history recorded stands
    return [(line.fact.identity, str(line.fact)) for line in lines if line.fact is not None]


def bot_facts_as_of(
    *,
    ctx: Context,
    day: date,
    scope: ScopeKind | None = None,
    project: str | None = None,
    tier: str | None = None,
    fact_type: str | None = None,
    month: str | None = None,
    contains: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[StoredFact]:
    """The facts this room could read at the end of `day`, newest first (hidden ones never;
    private ones in direct rooms only; what a read withholds now, never), filtered, merged and
    paged like the live list."""
    rule = withholding_of(ctx)
    seen = visible(ctx) - ({"private"} if rule.paused else set())
    scopes = [readable_scope(ctx, scope, project)] if scope else readable_scopes(ctx)
    facts = [
        f
        for f in rule.shown(facts_as_of(scopes=scopes, day=day))
        if f.visibility in seen
        and (not tier or f.tier == tier)
        and (not fact_type or f.meta.get("type", "fact") == fact_type)
        and (not month or f.day.isoformat().startswith(month))
        and (not contains or contains.lower() in f.text.lower())
    ]
    facts.sort(key=lambda f: (f.scope, f.fact_id, -f.day.toordinal(), f.shard_bot, f.file))
    also_in: dict[tuple[str, str], list[StoredFact]] = {}
    kept = []
    for fact in facts:  # the newest copy of each fact in a scope stands for the others
        key = (fact.scope, fact.fact_id)
        if key in also_in:
            also_in[key].append(fact)
        else:
            also_in[key] = []
            kept.append(fact)
    kept.sort(key=lambda f: (-f.day.toordinal(), -f.rank, f.fact_id))
    page = kept[offset : offset + limit]
    return FactsPage(
        items=page,
        total=len(kept),
        offset=offset,
        limit=limit,
        also_in={(f.scope, f.fact_id): also_in[(f.scope, f.fact_id)] for f in page},
    )


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
    return section_compose(
        inputs=inputs, budgets=budgets, team_wide=team_wide, bot=ctx.bot, shape=prompt_shape()
    )
