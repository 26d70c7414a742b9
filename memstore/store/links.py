"""Links between facts: add and remove them, and read a fact's neighbours.

A link lives in the files, in the source fact's metadata comment (`rel=supersedes:<id>`, several
comma-separated; `markdown.links_of` / `markdown.with_links` are its grammar), so a rebuild
restores it; `memstore.index` indexes it in `Link` rows. Adding or removing one is an ordinary
write (bot lock -> file -> history -> index) that changes the line's metadata and never its text,
so the fact keeps its identity. Reads sync first, like every selector.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db.models import F, Q

from memstore.errors import FactNotFound, InvalidFact
from memstore.facts import markdown
from memstore.facts.history import Change
from memstore.facts.locks import bot_lock
from memstore.facts.markdown import Line
from memstore.facts.paths import Scope, Shard
from memstore.facts.records import StoredFact, stored_from_row
from memstore.index import index_sync
from memstore.models import Fact, Link
from memstore.rooms.access import Context, forget_shards, readable_scopes
from memstore.store.services import file_rewrite
from memstore.vocabulary import LINK_KINDS

Pairs = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Edge:
    """`source` --kind--> `target` (fact identities)."""

    source: str
    kind: str
    target: str


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """Facts around some centre facts: the edges touching them and the facts at their ends
    that are readable (an end missing from `facts` was archived or is out of reach)."""

    centre: list[str]
    edges: list[Edge]
    facts: dict[str, StoredFact]


def fact_links_change(
    *,
    shards: Iterable[Shard],
    fact_id: str,
    change: Callable[[Pairs], Pairs],
    by: str,
    via: str,
    guard: Callable[[markdown.FactLine], None] | None = None,
) -> Pairs:
    """Rewrite the links of every copy of a fact in these shards; returns the links of the
    first copy after the change. Raises FactNotFound if no shard holds the fact. `guard` sees
    each copy as the file holds it, under the lock, and may raise to refuse (nothing written)."""
    fact_id = fact_id.strip().lower()
    found: list[Pairs] = []
    for shard in shards:

        def relink(lines: list[Line], rel: str) -> tuple[list[Line], list[Change]]:
            new_lines, changes = list(lines), []
            for i, line in enumerate(lines):
                if line.fact and line.fact.identity == fact_id:
                    if guard is not None:
                        guard(line.fact)
                    links = change(markdown.links_of(line.fact))
                    new = markdown.with_links(line.fact, links)
                    found.append(markdown.links_of(new))
                    if new != line.fact:
                        new_lines = markdown.replace_fact(new_lines, i, new)
                        changes.append(_edit(rel, new, line.fact))
            return new_lines, changes

        with bot_lock(shard.bot):
            for rel in files_holding(shard, fact_id):
                file_rewrite(rel, lambda lines, rel=rel: relink(lines, rel), by=by, via=via)
    if not found:
        raise FactNotFound(f"No fact {fact_id} in the memory that may be changed here.")
    return found[0]


def files_holding(shard: Shard, fact_id: str) -> list[str]:
    """The files of a shard holding a fact, by the index (synced first: a hand edit that moved
    the line is seen). Writers re-check each line under the lock; reading only these files
    instead of all of a shard's keeps a pass over a 10,000-fact store from re-reading it
    for every change."""
    index_sync(scopes=[shard.scope])
    rows = Fact.objects.filter(scope_key=str(shard.scope), shard_bot=shard.bot, fact_id=fact_id)
    return sorted(set(rows.values_list("file__path", flat=True)))


def link_add(
    *,
    shards: list[Shard],
    readable: list[Scope],
    fact_id: str,
    kind: str,
    target: str,
    by: str,
    via: str,
) -> Pairs:
    """Link a fact to another readable fact (raises FactNotFound / InvalidFact)."""
    target = target.strip().lower()
    if kind not in LINK_KINDS:
        raise InvalidFact(f"Link kind must be one of {', '.join(LINK_KINDS)}, not {kind!r}.")
    if target == fact_id.strip().lower():
        raise InvalidFact("A fact can't be linked to itself.")
    if not fact_lookup(scopes=readable, fact_ids=[target]):
        raise FactNotFound(f"No fact {target} in the memory readable here to link to.")
    return fact_links_change(
        shards=shards,
        fact_id=fact_id,
        change=lambda links: [*links, (kind, target)],
        by=by,
        via=via,
    )


def link_remove(
    *, shards: list[Shard], fact_id: str, kind: str, target: str, by: str, via: str
) -> Pairs:
    """Remove one link from a fact (FactNotFound if the fact or the link is not there)."""
    pair = (kind, target.strip().lower())
    had: list[bool] = []

    def drop(links: Pairs) -> Pairs:
        had.append(pair in links)
        return [link for link in links if link != pair]

    links = fact_links_change(shards=shards, fact_id=fact_id, change=drop, by=by, via=via)
    if not any(had):
        raise FactNotFound(f"Fact {fact_id} has no {kind} link to {pair[1]}.")
    return links


def bot_link_add(*, ctx: Context, fact_id: str, kind: str, target: str, via: str = "api") -> Pairs:
    """A bot links a fact it may change to a fact it may read, from the room it is in."""
    return link_add(
        shards=forget_shards(ctx, []),
        readable=readable_scopes(ctx),
        fact_id=fact_id,
        kind=kind,
        target=target,
        by=ctx.bot,
        via=via,
    )


def bot_link_remove(
    *, ctx: Context, fact_id: str, kind: str, target: str, via: str = "api"
) -> Pairs:
    """A bot removes a link from a fact it may change."""
    return link_remove(
        shards=forget_shards(ctx, []),
        fact_id=fact_id,
        kind=kind,
        target=target,
        by=ctx.bot,
        via=via,
    )


def fact_lookup(
    *, scopes: Iterable[Scope], fact_ids: Iterable[str], include_hidden: bool = True
) -> dict[str, StoredFact]:
    """The newest readable copy of each of these facts, by id (syncs first)."""
    scopes, ids = list(scopes), sorted(set(fact_ids))
    index_sync(scopes=scopes)
    rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes], fact_id__in=ids)
    if not include_hidden:
        rows = rows.exclude(visibility="hidden")
    found: dict[str, StoredFact] = {}
    for row in rows.annotate(file_path=F("file__path")).order_by("day", "file__path"):
        found[row.fact_id] = stored_from_row(row)
    return found


def neighbours_of(
    *, scopes: Iterable[Scope], fact_ids: Iterable[str], include_hidden: bool = True, depth: int = 1
) -> Neighbourhood:
    """The links touching these facts (both ways) within `depth` hops, in these scopes."""
    scopes, centre = list(scopes), list(dict.fromkeys(fact_ids))
    keys = [str(s) for s in scopes]
    index_sync(scopes=scopes)
    edges: set[Edge] = set()
    frontier, seen = set(centre), set(centre)
    for _ in range(max(1, min(depth, 3))):
        rows = Link.objects.filter(scope_key__in=keys).filter(
            Q(source__in=frontier) | Q(target__in=frontier)
        )
        found = {Edge(s, k, t) for s, k, t in rows.values_list("source", "kind", "target")[:500]}
        edges |= found
        frontier = {end for e in found for end in (e.source, e.target)} - seen
        seen |= frontier
        if not frontier:
            break
    facts = fact_lookup(scopes=scopes, fact_ids=seen)
    if not include_hidden:
        # A hidden fact is never shown to a bot, nor that it is linked at all.
        hidden = {fid for fid, fact in facts.items() if fact.visibility == "hidden"}
        edges = {e for e in edges if e.source not in hidden and e.target not in hidden}
        facts = {fid: fact for fid, fact in facts.items() if fid not in hidden}
    return Neighbourhood(centre=centre, edges=sorted(edges, key=_edge_order), facts=facts)


def store_graph(*, scopes: Iterable[Scope], limit: int = 200) -> Neighbourhood:
    """Every link of these scopes (up to `limit`) and the facts at their ends: a store's graph."""
    scopes = list(scopes)
    index_sync(scopes=scopes)
    rows = Link.objects.filter(scope_key__in=[str(s) for s in scopes]).order_by("source", "kind")
    edges = sorted(
        {Edge(s, k, t) for s, k, t in rows.values_list("source", "kind", "target")[:limit]},
        key=_edge_order,
    )
    ids = {end for e in edges for end in (e.source, e.target)}
    return Neighbourhood(centre=[], edges=edges, facts=fact_lookup(scopes=scopes, fact_ids=ids))


def _edge_order(edge: Edge) -> tuple[str, str, str]:
    return (edge.source, edge.kind, edge.target)


def _edit(rel: str, new: markdown.FactLine, old: markdown.FactLine) -> Change:
    return Change(
        op="edit",
        file=rel,
        fact_id=new.identity,
        line=str(new),
        old_line=str(old),
        old_fact_id=old.identity,
    )


def bot_neighbours(*, ctx: Context, fact_ids: Iterable[str], depth: int = 1) -> Neighbourhood:
    """The neighbourhood of these facts in the memory this room may read (hidden facts left out)."""
    return neighbours_of(
        scopes=readable_scopes(ctx), fact_ids=fact_ids, include_hidden=False, depth=depth
    )
