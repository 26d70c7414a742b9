"""The prompt's memory section and the change notes sent mid-conversation: the
shell around the pure core (`memstore.prompt.compose`).

`prompt_build` and `prompt_changes` sync the scopes a context may put in a prompt, load each
block's facts (hidden facts never; `searchable` ones are left for recall and counted as left on
disk), apply what a read withholds (`memstore.rules.withheld`: excluded topics, a paused
person's memory, lines the secret detector flags; a paused person's block says that memory is
paused rather than showing nothing), and compose the section in the shape in force
(`prompt_shape`: settings.PROMPT_SHAPE). A `seed` block's entry cut short ("…") is matched to
its fact by the text it starts when `prompt_changes` asks whether it is still in memory.

Does not: search (see `memstore.recall`), decide who may read what (`memstore.rooms.access`), or write.
"""

from collections.abc import Mapping
from dataclasses import replace

from django.conf import settings
from django.db import connection
from django.utils import timezone

from memstore.facts.markdown import parse_line
from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact
from memstore.facts.validity import expired_sql
from memstore.index import index_sync
from memstore.index.sync import SYNC_ROWS_SQL, sync_fold_rows, sync_fold_wanted
from memstore.models import Bot
from memstore.prompt.cache import DeltaFold, blocks_cached, deltas_folded
from memstore.prompt.changes import PromptChanges, changes_compose, fact_lines
from memstore.prompt.compose import (
    DEFAULT_BUDGETS,
    BlockInput,
    BlockKind,
    Budget,
    PromptSection,
    SliceName,
    line_unmarked,
    section_compose,
)
from memstore.prompt.indexed import block_read
from memstore.prompt.shape import ELLIPSIS, Shape
from memstore.recall.versions import VERSIONS_SQL, versions_parse
from memstore.rooms.access import WORKSPACE, Context, visible
from memstore.rules.sensitive import sensitive_any
from memstore.rules.withheld import (
    Withholding,
    withholding_parse,
    withholding_sql,
)

# --- thin shell ----------------------------------------------------------------------------


def prompt_budgets() -> dict[BlockKind, dict[SliceName, Budget]]:
    """The budgets in force: settings.PROMPT_BUDGETS over the defaults (`DEFAULT_BUDGETS`)."""
    configured = settings.PROMPT_BUDGETS or {}
    budgets = {kind: dict(slices) for kind, slices in DEFAULT_BUDGETS.items()}
    for kind, slices in configured.items():
        for name, value in slices.items():
            budgets[kind][name] = value if isinstance(value, Budget) else Budget(*value)
    return budgets


def prompt_shape() -> Shape:
    """The section's shape in force: settings.PROMPT_SHAPE with PROMPT_SHAPE_ENTRIES and
    PROMPT_SHAPE_ENTRY_CHARS (`memstore.prompt.shape`)."""
    return Shape(
        name=settings.PROMPT_SHAPE,
        entries=settings.PROMPT_SHAPE_ENTRIES,
        entry_chars=settings.PROMPT_SHAPE_ENTRY_CHARS,
    )


def shape_budgets(
    shape: Shape, budgets: dict[BlockKind, dict[SliceName, Budget]]
) -> dict[BlockKind, dict[SliceName, Budget]]:
    """What each block loads: its budgets, or in the `seed` shape its entries from each part
    (the category's best are among each part's best)."""
    if not shape.seed:
        return budgets
    each = Budget(facts=shape.entries, chars=shape.entry_chars)
    return {kind: {"profile": each, "recent": each} for kind in budgets}


def prompt_scopes(ctx: Context) -> list[tuple[BlockKind, Scope]]:
    """The scopes of the section's blocks, in prompt order: the workspace's, the person's
    (direct rooms), the projects in play, a private conversation's own, and the bot's own
    (unless it is private here)."""
    scopes: list[tuple[BlockKind, Scope]] = [("server", WORKSPACE)]
    if ctx.user_memory_allowed:
        scopes.append(("user", Scope("user", ctx.person)))
    scopes += [("project", Scope("project", name)) for name in ctx.projects]
    if ctx.room_private:
        scopes.append(("room", Scope("room", ctx.room.id)))
    if ctx.own_memory_read:
        scopes.append(("bot", Scope("bot", ctx.bot)))
    return scopes


def _load(scope: Scope, budgets: Mapping[SliceName, Budget], private: bool = False) -> BlockInput:
    # Each block's best rows straight from the index, never a sort of the whole scope.
    return block_read(scope, budgets, private)


def _seed_load(
    scope: Scope, budgets: Mapping[SliceName, Budget], private: bool = False
) -> BlockInput:
    return block_read(scope, budgets, private, seed=True)


def _empty(scope: Scope, private: bool) -> BlockInput | None:
    # What `_load` gives for a workspace scope without files, without asking: most workspaces
    # have none, and every prompt shows it. (Other scopes are loaded: a scope whose files the
    # sync could not index in time must still read as unavailable, not as empty.)
    if scope.kind != "server":
        return None
    on_disk = {"profile": 0, "recent": 0, "searchable": 0}
    return BlockInput(
        kind=scope.kind,  # type: ignore[arg-type]
        name=scope.name,
        on_disk=on_disk,
        private=private,
        flagged=frozenset(),
    )


def _still_there(scopes: list[Scope], fact_ids: set[str]) -> set[str]:
    """Which of these identities are still in memory, merged across shards, not hidden and
    not expired."""
    if not fact_ids:
        return set()
    keys = [str(scope) for scope in scopes]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT fact_id FROM (SELECT DISTINCT ON (f.scope_key, f.fact_id) f.fact_id,"
            f" f.visibility, {expired_sql('f')} AS expired FROM memstore_fact f"
            " JOIN memstore_memoryfile m ON m.id = f.file_id AND m.scope_key = ANY(%s)"
            " WHERE f.scope_key = ANY(%s) AND f.fact_id = ANY(%s)"
            " ORDER BY f.scope_key, f.fact_id, f.day DESC, f.shard_bot, m.path) newest"
            " WHERE visibility <> 'hidden' AND NOT expired",
            [timezone.localdate().isoformat(), keys, keys, sorted(fact_ids)],
        )
        return {row[0] for row in cursor.fetchall()}


def _nothing_to_check(item: BlockInput, rule: Withholding) -> bool:
    # Nobody paused or excluded a topic, no line is flagged, and (shared memory) no line holds
    # a sensitive keyword written there by hand.
    if not (rule.secrets_only and item.flagged is not None and not item.flagged):
        return False
    return item.kind == "user" or not sensitive_any(f.text for f in item.facts)


def blocks_withheld(inputs: list[BlockInput], rule: Withholding) -> list[BlockInput]:
    """The blocks with what the rule withholds taken out (and out of their counts); a paused
    person's user memory becomes a paused block."""
    kept = []
    for item in inputs:
        if rule.paused and item.kind == "user" and item.name == rule.person:
            kept.append(BlockInput(kind="user", name=item.name, paused=True))
            continue
        if _nothing_to_check(item, rule):
            kept.append(item)  # the common case: nothing to withhold, nothing to check
            continue
        shown: list[StoredFact] = []
        gone: dict[str, StoredFact] = {}  # one per fact: copies in several shards count once
        for fact in item.facts:
            flagged = None if item.flagged is None else fact.fact_id in item.flagged
            if rule.reason(fact, flagged=flagged) is None:
                shown.append(fact)
            else:
                gone[fact.fact_id] = fact
        if not gone:
            kept.append(item)
            continue
        on_disk = None
        if item.on_disk is not None:
            on_disk = dict(item.on_disk)
            for fact in gone.values():
                part = "profile" if fact.tier == "profile" else "recent"
                on_disk[part] = max(0, on_disk.get(part, 0) - 1)
        kept.append(replace(item, facts=shown, on_disk=on_disk))
    return kept


def _context_read(
    ctx: Context, scopes: list[Scope]
) -> tuple[bool, Withholding, dict[str, tuple], list[DeltaFold]]:
    """Whether the bot's memory is team-wide (it talks in groups and does not keep a private
    memory), what this context's reads withhold, the versions of the section's scopes
    (`memstore.recall.versions`) and the deltas of scopes whose files changed on disk
    (`cache.deltas_folded`): one statement, which also carries the sync's stat check when the
    caller folded it in (`sync_folded`; a file that changed raises `SyncNeeded`)."""
    keys = [str(scope) for scope in scopes]
    person = ctx.reads_for
    rule_sql, rule_params = withholding_sql(person=person)
    sql = (
        f"SELECT EXISTS (SELECT 1 FROM {Bot._meta.db_table} WHERE slug = %s AND in_groups"
        f" AND NOT private_memory), ({rule_sql}), ({VERSIONS_SQL})"
    )
    params = [ctx.bot, *rule_params, keys]
    if folded := sync_fold_wanted(keys):
        sql, params = f"{sql}, ({SYNC_ROWS_SQL})", [*params, keys]
    deltas = deltas_folded(scopes)
    for delta in deltas:
        sql, params = f"{sql}, ({delta.sql})", [*params, *delta.params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        team_wide, controls, found, *rest = cursor.fetchone()
    if folded:
        sync_fold_rows(rest.pop(0))  # raises SyncNeeded when a file changed: synced, read again
    for delta, items in zip(deltas, rest, strict=True):
        delta.items = items
    rule = withholding_parse(controls, person=person)
    return bool(team_wide), rule, versions_parse(found), deltas


def _build(ctx: Context) -> tuple[PromptSection, list[Scope]]:
    scopes = prompt_scopes(ctx)
    index_sync(scopes=[scope for _, scope in scopes])  # skipped when the caller synced
    budgets, shape = prompt_budgets(), prompt_shape()
    team_wide, rule, versions, deltas = _context_read(ctx, [scope for _, scope in scopes])
    # A paused person's private facts are withheld: read as outside a direct room.
    private = "private" in visible(ctx) and not rule.paused
    blocks = blocks_cached(
        scopes,
        shape_budgets(shape, budgets),
        private,
        _seed_load if shape.seed else _load,
        _empty,
        versions=versions,
        folded=deltas,
        shape=shape.name,
    )
    inputs = blocks_withheld(blocks, rule)
    section = section_compose(
        inputs=inputs, budgets=budgets, team_wide=team_wide, bot=ctx.bot, shape=shape
    )
    return section, [scope for _, scope in scopes]


def prompt_build(*, ctx: Context) -> PromptSection:
    """The memory section for a bot in a room, from the files as they are now."""
    return _build(ctx)[0]


def prompt_changes(*, ctx: Context, previous: str) -> PromptChanges:
    """The + / − note of fact lines changed since `previous` (a section built earlier)."""
    section, scopes = _build(ctx)
    parsed = [parse_line(line_unmarked(line)) for line in fact_lines(previous)]
    earlier = {fact.identity for fact in parsed}
    cut = _cut_facts(scopes, [fact for fact in parsed if fact.text.endswith(ELLIPSIS)])
    present = _still_there(scopes, earlier | {i for ids in cut.values() for i in ids})
    present |= {identity for identity, ids in cut.items() if ids & present}
    return changes_compose(previous=previous, current=section, present=present)


def _cut_facts(scopes: list[Scope], lines: list) -> dict[str, set[str]]:
    """For each entry a `seed` block cut ("…"), the identities of the facts of these scopes
    of its date whose text it starts: its line is not the fact's own, so its identity is not."""
    if not lines:
        return {}
    found: dict[str, set[str]] = {line.identity: set() for line in lines}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.identity, f.fact_id FROM unnest(%s::text[], %s::date[], %s::text[])"
            " AS c(identity, day, head) JOIN memstore_fact f ON f.scope_key = ANY(%s)"
            " AND f.day = c.day AND starts_with(f.text, c.head)",
            [
                [line.identity for line in lines],
                [line.day for line in lines],
                [line.text.removesuffix(ELLIPSIS) for line in lines],
                [str(scope) for scope in scopes],
            ],
        )
        for identity, fact_id in cursor.fetchall():
            found[identity].add(fact_id)
    return found
