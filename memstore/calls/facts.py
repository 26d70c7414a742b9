"""The bots' door for facts: remember, forget (or erase), edit and list, and the list as it
stood on a day. The API's facts router and the MCP tools call these and nothing below them.

Each function takes the `Context` its call opened (`memstore.calls.context`) and lets
`memstore.rooms.access` decide which scopes it may read and which shard it writes (never the
caller's say-so), then calls one service or selector. A save is `memstore.store.in_room`'s,
shared with the learner and the importers.
"""

from collections.abc import Iterable
from dataclasses import dataclass, replace

from memstore.errors import EditConflict, FactHeldElsewhere, FactNotFound
from memstore.facts.history import Change
from memstore.facts.markdown import MAX_TEXT_CHARS, day_check
from memstore.facts.paging import Page
from memstore.facts.paths import Scope, ScopeKind, Shard, locate, scope_split
from memstore.facts.records import StoredFact
from memstore.facts.validity import is_expired
from memstore.privacy.erase import Erasure, fact_erase, reach_of_bot
from memstore.privacy.forgotten import copies_outside, target_ids
from memstore.prompt.asof import bot_facts_as_of
from memstore.registry.grants import membership_check
from memstore.rooms.access import (
    Context,
    forget_shards,
    readable_scope,
    readable_scopes,
    visible,
    withholding_of,
    writable_shard,
)
from memstore.rules.failures import refusals_recorded
from memstore.store.in_room import remember_in_room as bot_remember
from memstore.store.selectors import fact_find, facts_list, legacy_rooms_of
from memstore.store.services import fact_edit, fact_forget

__all__ = [
    "MAX_TEXT_CHARS",
    "Forgetting",
    "Scope",
    "StoredFact",
    "bot_edit",
    "bot_facts_as_of",
    "bot_facts_list",
    "bot_forget",
    "bot_forget_answer",
    "bot_remember",
    "day_check",
    "is_expired",
    "locate",
]


@refusals_recorded("forget")
def bot_forget(
    *,
    ctx: Context,
    fact_id: str | None = None,
    text: str | None = None,
    scope: ScopeKind | None = None,
    project: str | None = None,
    via: str = "api",
) -> list[Change]:
    """Remove a fact from every shard this context may change (or only those of `scope`).

    Without a scope that is the bot's own memory, the person's shard (direct rooms), joined
    projects and the bot's copies in legacy rooms; `scope="room"` means those legacy copies."""
    return bot_forget_answer(
        ctx=ctx, fact_id=fact_id, text=text, scope=scope, project=project, via=via
    ).removed


@dataclass(frozen=True, slots=True)
class Forgetting:
    """A bot's forget (or erase) answered in full: the lines it removed, the copies it could
    not touch (other bots' shards of the scopes it covered, which still reach its prompt), and
    for an erase, what else it cleaned."""

    removed: list[Change]
    remaining: list[StoredFact]
    erased: Erasure | None = None


@refusals_recorded("forget")
def bot_forget_answer(
    *,
    ctx: Context,
    fact_id: str | None = None,
    text: str | None = None,
    scope: ScopeKind | None = None,
    project: str | None = None,
    erase: bool = False,
    via: str = "api",
) -> Forgetting:
    """`bot_forget` (or, with `erase`, `erase.fact_erase` over the same shards and the bot's
    own records), saying what remains. When only other bots' shards hold the fact, raises
    FactHeldElsewhere listing them rather than "not found"."""
    shards = _forget_targets(ctx, scope, project)
    erased = None
    try:
        if erase:
            erased = fact_erase(
                reach=reach_of_bot(ctx.bot, shards), fact_id=fact_id, text=text, by=ctx.bot, via=via
            )
            removed = erased.removed
        else:
            removed = fact_forget(shards=shards, fact_id=fact_id, text=text, by=ctx.bot, via=via)
    except FactNotFound as error:
        ids = target_ids(fact_id=fact_id, text=text)
        _held_read_only(ctx, ids)
        remaining = copies_outside(shards=shards, ids=ids)
        if remaining:
            raise FactHeldElsewhere(
                "Only other bots' shards hold this fact, so it still reaches this bot's prompt; "
                "their writers (or a person in the console) can forget it.",
                detail={"remaining": [c.file for c in remaining]},
            ) from error
        raise
    remaining = copies_outside(shards=shards, ids=target_ids(fact_id=fact_id, text=text))
    return Forgetting(removed=removed, remaining=remaining, erased=erased)


def _held_read_only(ctx: Context, ids: Iterable[str]) -> None:
    # A forget that found nothing: if the bot's own shard of a project it may only read holds
    # the fact, say that (MissingGrant naming the project) rather than "not found".
    scopes = [Scope("project", p) for p in sorted(ctx.read_only)]
    for fact_id in ids if scopes else ():
        for copy in fact_find(scopes=scopes, fact_id=fact_id):
            if copy.shard_bot == ctx.bot:
                name = scope_split(copy.scope)[1]
                membership_check(bot=ctx.bot, project=name, read_only=ctx.read_only)


def _forget_targets(ctx: Context, scope: ScopeKind | None, project: str | None) -> list[Shard]:
    # Without a scope: own memory, the person's shard (direct rooms), joined projects and the
    # bot's copies in legacy rooms; scope="room" means those legacy copies.
    if scope is None:
        return forget_shards(ctx, legacy_rooms_of(ctx.bot))
    if scope == "room":
        return [Scope("room", r).shard(ctx.bot) for r in legacy_rooms_of(ctx.bot)]
    return [writable_shard(ctx, scope, project)]


@refusals_recorded("edit")
def bot_edit(
    *,
    ctx: Context,
    fact_id: str,
    text: str,
    expected_text: str | None = None,
    scope: ScopeKind | None = None,
    project: str | None = None,
    via: str = "api",
    meta: dict[str, object | None] | None = None,
) -> StoredFact:
    """Replace a fact's text in the shard this context writes (and with `meta`, set metadata
    keys, or drop those given None: `until`, `review`). Without a scope, the fact is looked up
    in the bot's writable shards (own memory first, then the person's, then projects)."""
    if scope is not None:
        shard = writable_shard(ctx, scope, project)
    else:
        shard = _shard_holding(ctx, fact_id)
        if shard is None:
            if expected_text is not None:
                raise EditConflict(
                    "This fact was removed by someone else.",
                    detail={"current": None, "fact_id": fact_id},
                )
            raise FactNotFound("No fact with that id in the memory this bot may change here.")
    return fact_edit(
        shard=shard,
        fact_id=fact_id,
        text=text,
        expected_text=expected_text,
        person=ctx.person,
        by=ctx.bot,
        via=via,
        meta=meta,
    )


def bot_facts_list(
    *,
    ctx: Context,
    scope: ScopeKind | None = None,
    project: str | None = None,
    tier: str | None = None,
    fact_type: str | None = None,
    month: str | None = None,
    contains: str | None = None,
    expired: bool | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[StoredFact]:
    """Facts this context may read (all of them, or one scope), newest first, one per fact and
    scope (a `FactsPage`: the copies other shards hold are named, not listed again); hidden
    facts are never shown to bots; `expired`: only facts past their `until` (True) or only the
    others; `fact_type`: only facts of that `type=`."""
    scopes = [readable_scope(ctx, scope, project)] if scope else readable_scopes(ctx)
    page = facts_list(
        scopes=scopes,
        tier=tier,
        fact_type=fact_type,
        merged=True,
        month=month,
        contains=contains,
        visible=visible(ctx),
        expired=expired,
        offset=offset,
        limit=limit,
    )
    # What every read withholds (an excluded topic, a paused person, a flagged line) is left
    # out of the page too; the total counts only what may be listed.
    shown = withholding_of(ctx).shown(page.items)
    return replace(page, items=shown, total=page.total - (len(page.items) - len(shown)))


def _shard_holding(ctx: Context, fact_id: str) -> Shard | None:
    shards = forget_shards(ctx, [])
    copies = fact_find(scopes=[s.scope for s in shards], fact_id=fact_id)
    held = {(c.scope, c.shard_bot) for c in copies}
    for shard in shards:
        if (str(shard.scope), shard.bot) in held:
            return shard
    return None
