"""A person's About me page: everything any bot knows about them, merged across every bot's
shard of their user memory (`users/<person>/memory/by-agent/*`), which bot wrote each fact, when
and from which room; the bots that know them; one fact edited, forgotten (one bot's copy, or
everywhere, which erases it: `memstore.privacy.erase`) and put back.

Whose page a viewer may open is decided here (`about_whom`, from `Viewer.may_see`): their own,
or anyone's for staff. The person (or staff) changes facts about them here as themselves
(via=console), whether or not they may edit the bot that wrote them. The controls (pause,
excluded topics) are `memstore.rules.controls`, the export `memstore.privacy.person_export`, what reaches
prompts `memstore.console.reach`. Nothing here renders; wording is the presenters'.
"""

from dataclasses import dataclass

from django.db.models import Count

from memstore.console.search import SearchResults, person_search
from memstore.console.viewer import Viewer
from memstore.console.writes import edit_as
from memstore.errors import FactNotFound, NotAllowed, PersonUnknown
from memstore.facts.activity import fact_writers, shard_history_page
from memstore.facts.history import Change
from memstore.facts.markdown import parse_line
from memstore.facts.paging import Page
from memstore.facts.paths import Scope, Shard, locate, memory_root, scope_shards
from memstore.facts.records import StoredFact
from memstore.index import index_sync
from memstore.models import Fact
from memstore.privacy.erase import fact_erase, reach_of_person
from memstore.registry.people import person_bots, person_unlink
from memstore.store.selectors import fact_find, facts_list
from memstore.store.services import fact_forget, fact_remember, fact_restore

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
    """A bot that knows the person: how many facts its shard of their memory holds, and
    whether it is linked (may act for them now) or only wrote about them before."""

    bot: str
    facts: int
    linked: bool = False


def about_whom(*, viewer: Viewer, person: str | None) -> str:
    """Whose About me page this viewer opens: their own, or (staff only) the person named."""
    if not person or person == viewer.person:
        return viewer.person
    if not viewer.may_see(Scope("user", person)):  # the one privacy rule (viewer.py)
        raise NotAllowed("You can only open your own About me page.")
    return person


def about_search(
    *, person: str, q: str, exact: bool = False
) -> tuple[Page[AboutFact], SearchResults]:
    """The facts about the person that a search finds, best first, as every console search and
    the bots' recall find them (words, meaning, the relevance floor; a typo corrected only when
    the words as typed find nothing; `exact`: never): one page, and how it searched."""
    results = person_search(person=person, q=q, exact=exact)
    items = [
        AboutFact(fact=h.row.fact, bot=h.bot, room=h.row.fact.room, by=h.row.by, via=h.row.via)
        for h in results.hits
    ]
    return Page(items=items, total=len(items), offset=0, limit=len(items)), results


def about_facts(*, person: str, offset: int = 0) -> Page[AboutFact]:
    """Facts about the person from every bot's shard, newest first (a search is
    `about_search`)."""
    page = facts_list(scopes=[Scope("user", person)], offset=offset, limit=PAGE_SIZE)
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
    """The bots linked to the person (they may act for them) and the bots holding a shard of
    their user memory, with their fact counts (synced)."""
    scope = Scope("user", person)
    index_sync(scopes=[scope])
    linked = set(bots_linked(person=person))
    counts: dict[str, int] = {bot: 0 for bot in linked}
    counts |= {s.bot: 0 for s in scope_shards(memory_root(), scope)}
    grouped = Fact.objects.filter(scope_key=str(scope)).values("shard_bot").annotate(n=Count("id"))
    counts |= {row["shard_bot"]: row["n"] for row in grouped}
    return [BotKnowing(bot=b, facts=n, linked=b in linked) for b, n in sorted(counts.items())]


def bots_linked(*, person: str) -> list[str]:
    """The bots that may act for the person; none for a console account not in the registry."""
    try:
        return person_bots(person=person)
    except PersonUnknown:
        return []


def bot_unlink(*, viewer: Viewer, person: str, bot: str) -> bool:
    """Stop a bot acting for the person (what it wrote stays, to forget or keep); the person
    themselves or staff. False if it was not linked."""
    return person_unlink(person=about_whom(viewer=viewer, person=person), bot=bot)


def forget_everywhere(*, viewer: Viewer, person: str, fact_id: str) -> list[Change]:
    """Erase a fact about the person from every bot's shard of their memory, as the viewer,
    with the one erasure (`memstore.privacy.erase`, a person's reach): history, stored
    exchanges, replies, notes... keep no copy. The lines removed; FactNotFound if no shard
    holds it."""
    whom = about_whom(viewer=viewer, person=person)
    if not fact_find(scopes=[Scope("user", whom)], fact_id=fact_id):
        raise FactNotFound("No bot holds that fact about you any more.")
    # fact_erase records any refusal in the failure log itself (once).
    erased = fact_erase(
        reach=reach_of_person(whom), fact_id=fact_id, by=viewer.person, via="console"
    )
    return erased.removed


# --- one fact about the person: the person (or staff) edits and forgets it, editor or not ------


def about_fact_add(*, viewer: Viewer, person: str, bot: str, text: str) -> AboutFact:
    """Save a fact about the person, as the viewer, in the shard of their memory that `bot`
    writes (a bot that acts for them: linked, or holding a shard of their memory already), as a
    lasting profile fact; the content rules apply as to every save."""
    whom = about_whom(viewer=viewer, person=person)
    if bot not in {b.bot for b in bots_knowing(person=whom)}:
        raise NotAllowed(f"{bot!r} does not act for {whom}: choose one of the bots that know them.")
    stored = fact_remember(
        shard=Scope("user", whom).shard(bot),
        text=text,
        tier="profile",
        person=whom,
        by=viewer.person,
        via="console",
    )
    return AboutFact(fact=stored, bot=bot, room="", by=viewer.person, via="console")


def _own_shard(viewer: Viewer, person: str, file: str) -> Shard:
    # The shard of this file, if it belongs to the user memory of the page's person.
    whom = about_whom(viewer=viewer, person=person)
    location = locate(file or "")
    if location is None or location.shard.scope != Scope("user", whom):
        raise NotAllowed("That file is not part of this person's memory.")
    return location.shard


def about_fact_get(*, viewer: Viewer, person: str, file: str, fact_id: str) -> AboutFact:
    """One fact about the person in one bot's file (FactNotFound if it is gone)."""
    shard = _own_shard(viewer, person, file)
    for fact in fact_find(scopes=[shard.scope], fact_id=fact_id):
        if fact.file == file:
            return AboutFact(fact=fact, bot=shard.bot, room=fact.room, by="", via="")
    raise FactNotFound("That fact is no longer in this file; it may have been removed.")


def about_fact_edit(
    *, viewer: Viewer, person: str, file: str, fact_id: str, text: str, expected_text: str
) -> AboutFact:
    """Reword a fact about the person in place, as the viewer (EditConflict if it changed)."""
    shard = _own_shard(viewer, person, file)
    stored = edit_as(viewer, shard, fact_id=fact_id, text=text, expected_text=expected_text)
    return AboutFact(fact=stored, bot=shard.bot, room=stored.room, by=viewer.person, via="console")


def about_fact_forget(*, viewer: Viewer, person: str, file: str, fact_id: str) -> tuple[str, str]:
    """Forget one bot's copy of a fact about the person; (that bot, the text forgotten)."""
    shard = _own_shard(viewer, person, file)
    changes = fact_forget(shards=[shard], fact_id=fact_id, by=viewer.person, via="console")
    fact = parse_line(changes[0].line)
    return shard.bot, fact.body if fact else changes[0].line


def about_fact_undo(*, viewer: Viewer, person: str, file: str, fact_id: str) -> AboutFact:
    """Put back the newest removal of this fact from the file's shard."""
    shard = _own_shard(viewer, person, file)
    page = shard_history_page(root=memory_root(), shard=shard, limit=200, removed_only=True)
    removals = [item.change for item in page.items if item.change.fact_id == fact_id]
    if not removals:
        raise FactNotFound("There is no recorded removal of that fact to undo.")
    newest = [c for c in removals if c.at == removals[0].at]
    restored = [fact_restore(change=c, by=viewer.person, via="console") for c in newest]
    fact = restored[0]
    return AboutFact(fact=fact, bot=shard.bot, room=fact.room, by=viewer.person, via="console")
