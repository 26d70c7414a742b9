"""Running an import: first who must exist (the bots, people and project memberships the items
need: used when registered, created or joined only when the options ask, and only pretended in
a dry run), then every item through the one write path a bot uses (`remember_in_room`; legacy room
memory, which no bot may write, through `fact_remember` into the room's shard), then the links
between the notes.

Secrets (in the text and every metadata value), excluded topics, length limits and who may write
where are decided by the write path exactly as for an API call, and a fact the scope holds is not
written twice, so a second run adds nothing and finishes what an interrupted one left: each fact
is its own atomic write. A dry run applies the same checks (the target, the text, the content
rules, "already there") and changes nothing: no file, no bot, no person, no membership.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.utils import timezone

from memstore.errors import MemstoreError, PersonUnknown, SecretRefused
from memstore.facts.markdown import TAGS, FactLine, links_of, make_fact
from memstore.facts.paths import Scope, Shard
from memstore.imports.base import Agent, ImportReport, Item, Join, Options, Relation, Skipped
from memstore.invocation import manage_command
from memstore.registry.bots import bot_create, bots_registered, project_join
from memstore.registry.people import person_add, person_bots, person_canonical, person_link
from memstore.rooms.access import Context, writable_shard
from memstore.rooms.context import context_open
from memstore.rules.content import content_check
from memstore.rules.policy import secret_kind
from memstore.store.in_room import remember_in_room
from memstore.store.links import fact_links_change
from memstore.store.selectors import fact_find
from memstore.store.services import fact_remember

IMPORT_ROOM = "import"


@dataclass
class World:
    """The bots, people and memberships this run may use (registered, or created by it), and
    why an item that needs a missing one is refused."""

    joined: dict[str, set[str]] = field(default_factory=dict)
    people: dict[str, str] = field(default_factory=dict)  # lower-case name -> registered name
    missing: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, name) -> why
    declared: dict[tuple[str, str], Join] = field(default_factory=dict)  # (bot, project)

    def blocked(self, item: Item) -> str | None:
        if why := self.missing.get(("bot", item.bot)):
            return why
        if item.scope == "user" and (why := self.missing.get(("person", _key(item.person)))):
            return why
        outside = item.project not in self.joined.get(item.bot, ())
        if (
            item.scope == "project"
            and outside
            and (join := self.declared.get((item.bot, item.project or "")))
        ):
            return (
                f"bot {item.bot!r} has not joined project {item.project!r} ({join.src} "
                "lists it): join it with --create-projects"
            )
        return None


def import_items(
    found: Iterable,
    *,
    options: Options,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Prepare who must exist, save every item (or only check it, in a dry run), link notes."""
    found = list(found)
    report = ImportReport(dry_run=options.dry_run)
    items = [f for f in found if isinstance(f, Item)]
    relations = [f for f in found if isinstance(f, Relation)]
    report.skipped = [f for f in found if isinstance(f, Skipped)]
    world = _prepare(found, items, options, report)
    contexts: dict[tuple, Context] = {}
    firsts: dict[str, tuple[Shard, str, bool]] = {}  # note key -> (shard, fact id, exists)
    for done, item in enumerate(items, start=1):
        if why := world.blocked(item):
            report.refused.append(Skipped(item.src, why))
        else:
            _save(
                item, world=world, options=options, contexts=contexts, report=report, firsts=firsts
            )
        if progress:
            progress(done, len(items))
    _relate(relations, firsts, options=options, report=report)
    return report


def _prepare(found: list, items: list[Item], options: Options, report: ImportReport) -> World:
    world = World()
    agents = {f.bot: f for f in found if isinstance(f, Agent)}
    bots = list(dict.fromkeys([*agents, *(i.bot for i in items)]))
    known = {info.slug: info for info in bots_registered()}
    registered = set(known) & set(bots)
    for bot in bots:
        if bot in registered:
            continue
        agent = agents.get(bot)
        if not options.create_bots:
            origin = f" (agent {agent.origin})" if agent and agent.origin else ""
            remap = (
                f", or map the agent to a bot with --map-agent {agent.origin}=SLUG"
                if (agent and agent.origin)
                else ""
            )
            world.missing[("bot", bot)] = (
                f"bot {bot!r}{origin} is not registered: create it with --create-bots{remap}"
            )
            continue
        if not options.dry_run:
            bot_create(slug=bot, display_name=agent.name if agent else "")
        named = f" for agent {agent.origin} ({agent.name!r})" if agent and agent.origin else ""
        report.created.append(f"{_verb(options, 'created')} bot {bot}{named}")
    for bot in registered:
        world.joined[bot] = set(known[bot].projects)
    for join in (f for f in found if isinstance(f, Join)):
        _join(join, world, options, report)
    _people(items, world, options, report)
    return world


def _join(join: Join, world: World, options: Options, report: ImportReport) -> None:
    world.declared[(join.bot, join.project)] = join
    if join.project in world.joined.get(join.bot, ()) or ("bot", join.bot) in world.missing:
        return
    if not options.create_projects:
        return
    if not options.dry_run:
        project_join(bot=join.bot, project=join.project)
    world.joined.setdefault(join.bot, set()).add(join.project)
    verb = _verb(options, "joined")
    report.created.append(f"{verb} project {join.project} as bot {join.bot} ({join.src})")


def _people(items: list[Item], world: World, options: Options, report: ImportReport) -> None:
    wanted = {_key(i.person): i.person for i in items if i.scope == "user" and i.person}
    for lower, name in wanted.items():
        if registered := _registered(name):
            world.people[lower] = registered
        elif options.create_people:
            if not options.dry_run:
                person_add(name=name)
            world.people[lower] = name
            report.created.append(f"{_verb(options, 'created')} person {name}")
        else:
            world.missing[("person", lower)] = (
                f"person {name!r} is not registered: add them (`{manage_command('people', 'add', name)}`), "
                "map the source's id to a person with --map-user ID=PERSON, or pass "
                "--create-people"
            )
    pairs = {(world.people[_key(i.person)], i.bot) for i in items if _key(i.person) in world.people}
    for person, bot in sorted(pairs):
        if ("bot", bot) in world.missing or _linked(person, bot):
            continue
        if not options.dry_run:
            person_link(person=person, bot=bot)
        report.created.append(f"{_verb(options, 'linked')} person {person} to bot {bot}")


def _registered(name: str) -> str | None:
    try:
        return person_canonical(name=name)
    except PersonUnknown:
        return None


def _linked(person: str, bot: str) -> bool:
    return _registered(person) is not None and bot in person_bots(person=person)


def _save(
    item: Item,
    *,
    world: World,
    options: Options,
    contexts: dict[tuple, Context],
    report: ImportReport,
    firsts: dict[str, tuple[Shard, str, bool]],
) -> None:
    if item.raw and (kind := secret_kind(item.raw)):
        # Checked as written: cleaning tags into metadata may cut a key the write path would see.
        report.refused.append(Skipped(item.src, f"{SecretRefused.code}: This looks like {kind}."))
        return
    meta: dict[str, object] = dict(item.meta)
    if not item.verbatim:
        meta.setdefault("src", item.src)  # who and how (`by=<bot> via=import`): the write's
    try:
        if item.scope == "room":
            shard = Scope("room", item.room or "").shard(item.bot)
            person = None
        else:
            ctx = _context(item, world, contexts)
            shard, person = writable_shard(ctx, item.scope, item.project), ctx.person
        if options.dry_run:
            existed, identity = _would_exist(shard, item, meta, person)
        elif item.scope == "room":
            fact = fact_remember(
                shard=shard,
                text=item.text,
                tier=item.tier,
                day=item.day,
                meta=meta,
                by=item.bot,
                via="import",
            )
            existed, identity = fact.existed, fact.fact_id
        else:
            fact = remember_in_room(
                ctx=ctx,
                text=item.text,
                scope=item.scope,
                project=item.project,
                tier=item.tier,
                meta=meta,
                via="import",
                day=item.day,
            )
            existed, identity = fact.existed, fact.fact_id
    except MemstoreError as exc:
        report.refused.append(Skipped(item.src, f"{exc.code}: {exc.message}"))
        return
    if item.key and item.key not in firsts:
        firsts[item.key] = (shard, identity, existed)
    if existed:
        report.existing += 1
    else:
        report.imported += 1


def _would_exist(
    shard: Shard, item: Item, meta: dict[str, object], person: str | None
) -> tuple[bool, str]:
    """A dry run: the checks the write applies, then whether the scope holds the fact already;
    raises what the write would raise, writes nothing."""
    tag = item.tier if item.tier in TAGS else None
    fact = make_fact(text=item.text, day=item.day or timezone.localdate(), tag=tag, meta=meta)
    content_check(shard=shard, fact=fact, person=person, via="import")
    return bool(fact_find(scopes=[shard.scope], fact_id=fact.identity)), fact.identity


def _context(item: Item, world: World, contexts: dict[tuple, Context]) -> Context:
    # An import acts as the bot in a room of its own: a direct room with the person for user
    # memory, a routine room otherwise, with the projects it belongs to (or, in a dry run,
    # would belong to). It is staff's command, not a bot's call (no ticket, no room binding).
    person = world.people.get(_key(item.person)) if item.scope == "user" else None
    key = (item.bot, item.scope, person, item.project)
    if key not in contexts:
        contexts[key] = context_open(
            bot=item.bot,
            room_id=IMPORT_ROOM,
            room_kind="direct" if item.scope == "user" else "routine",
            person=person,
            projects=[item.project] if item.project else [],
            joined=world.joined.get(item.bot, set()),
        )
    return contexts[key]


def _relate(
    relations: list[Relation],
    firsts: dict[str, tuple[Shard, str, bool]],
    *,
    options: Options,
    report: ImportReport,
) -> None:
    for rel in relations:
        if rel.source not in firsts or rel.target not in firsts:
            missing = rel.source if rel.source not in firsts else rel.target
            report.skipped.append(
                Skipped(rel.src, f"a relation to or from a note with no imported fact ({missing})")
            )
            continue
        shard, source_id, _ = firsts[rel.source]
        target_id = firsts[rel.target][1]
        if source_id == target_id:
            continue
        pair = (rel.kind, target_id)
        if options.dry_run:
            held = fact_find(scopes=[shard.scope], fact_id=source_id)
            lines = [FactLine(day=f.day, text=f.text, meta=f.meta) for f in held]
            if not any(pair in links_of(line) for line in lines):
                report.linked += 1
            continue
        added: list[bool] = []
        try:
            fact_links_change(
                shards=[shard],
                fact_id=source_id,
                change=_adding(pair, added),
                by=shard.bot,
                via="import",
            )
        except MemstoreError as exc:
            report.refused.append(Skipped(rel.src, f"{exc.code}: {exc.message}"))
            continue
        report.linked += any(added)


def _adding(pair: tuple[str, str], added: list[bool]):
    def add(links: list[tuple[str, str]]) -> list[tuple[str, str]]:
        added.append(pair not in links)
        return [*links, pair]

    return add


def _key(person: str | None) -> str:
    return (person or "").lower()


_WOULD = {"created": "would create", "joined": "would join", "linked": "would link"}


def _verb(options: Options, verb: str) -> str:
    return _WOULD[verb] if options.dry_run else verb
