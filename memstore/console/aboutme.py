"""A person's About me page: everything any bot knows about them, merged across every bot's
shard of their user memory (`users/<person>/memory/by-agent/*`), which bot wrote each fact, when
and from which room; forgetting a fact everywhere; the bots that know them. The export is `memstore.person_export`.

Whose page a viewer may open is decided here (`about_whom`): their own, or anyone's for staff.
Edits and single forgets go through `memstore.console.writes` (as the person, via=console);
the controls (pause, excluded topics) are `memstore.controls`; what reaches prompts is
`memstore.console.reach`. Nothing here renders; wording is the console's presenters'.
"""

from dataclasses import dataclass

from django.db.models import Count

from memstore.activity import fact_writers
from memstore.console.viewer import Viewer
from memstore.errors import FactNotFound, NotAllowed
from memstore.history import Change
from memstore.index import index_sync, memory_root
from memstore.models import Fact
from memstore.paging import Page
from memstore.paths import Scope, Shard, locate, scope_shards
from memstore.records import StoredFact
from memstore.selectors import fact_find, facts_list
from memstore.services import fact_forget

PAGE_SIZE = 50


@dataclass(frozen=True, slots=True)
class AboutFact:
    """A fact about the person: the stored fact, the bot whose shard holds it, the room it was
    learned in (from its `src=room:…`; "" when not recorded) and who saved it how."""

    fact: StoredFact
    bot: str
    room: str
    by: str
    via: str


@dataclass(frozen=True, slots=True)
class BotKnowing:
    """A bot that knows the person: how many facts its shard of their memory holds."""

    bot: str
    facts: int


def about_whom(*, viewer: Viewer, person: str | None) -> str:
    """Whose About me page this viewer opens: their own, or (staff only) the person named."""
    if not person or person == viewer.person:
        return viewer.person
    if not viewer.may_see(Scope("user", person)):  # the one privacy rule (viewer.py)
        raise NotAllowed("You can only open your own About me page.")
    return person


def about_facts(*, person: str, q: str = "", offset: int = 0) -> Page[AboutFact]:
    """Facts about the person from every bot's shard, newest first, searched by `q` (any case)."""
    page = facts_list(
        scopes=[Scope("user", person)], contains=q.strip() or None, offset=offset, limit=PAGE_SIZE
    )
    writers: dict[Shard, dict] = {}
    items = []
    for fact in page.items:
        by, via = fact.meta.get("by", ""), fact.meta.get("via", "")
        if not (by or via) and (location := locate(fact.file)) is not None:
            if location.shard not in writers:
                writers[location.shard] = fact_writers(root=memory_root(), shard=location.shard)
            if written := writers[location.shard].get(fact.fact_id):
                by, via = written.by, written.via
        items.append(AboutFact(fact=fact, bot=fact.shard_bot, room=fact.room, by=by, via=via))
    return Page(items=items, total=page.total, offset=page.offset, limit=page.limit)


def bots_knowing(*, person: str) -> list[BotKnowing]:
    """The bots holding a shard of the person's user memory, with their fact counts (synced)."""
    scope = Scope("user", person)
    index_sync(scopes=[scope])
    counts: dict[str, int] = {s.bot: 0 for s in scope_shards(memory_root(), scope)}
    grouped = Fact.objects.filter(scope_key=str(scope)).values("shard_bot").annotate(n=Count("id"))
    counts |= {row["shard_bot"]: row["n"] for row in grouped}
    return [BotKnowing(bot=bot, facts=n) for bot, n in sorted(counts.items())]


def forget_everywhere(*, viewer: Viewer, person: str, fact_id: str) -> list[Change]:
    """Remove a fact about the person from every bot's shard of their memory, as the viewer;
    FactNotFound if no shard holds it."""
    scope = Scope("user", about_whom(viewer=viewer, person=person))
    if not fact_find(scopes=[scope], fact_id=fact_id):
        raise FactNotFound("No bot holds that fact about you any more.")
    # fact_forget records any refusal in the failure log itself (once).
    shards = scope_shards(memory_root(), scope)
    return fact_forget(shards=shards, fact_id=fact_id, by=viewer.person, via="console")
