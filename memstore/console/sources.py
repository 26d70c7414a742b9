"""Which memories shaped a reply, for people: under an exchange its "memory sources" (what was
retrieved, injected and cited, three lists, never merged), on a fact who has "seen" it (which
bots, rooms and replies, when), and per bot its recent exchanges with their counts.

Privacy is the console's as everywhere: an exchange is shown by the learner's rule
(`memstore.learning.activity.events_visible`: a person sees group rooms and their own direct
rooms; staff all), a fact by the viewer's (`Viewer.may_see`). The records are written by
`memstore.learning.sources`; this module only reads them.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, F, Q

from memstore.console.facts import FactRow, rows_of
from memstore.console.viewer import Viewer
from memstore.errors import FactNotFound, NotAllowed
from memstore.facts.paths import Scope
from memstore.facts.records import stored_from_row
from memstore.index import index_sync
from memstore.learning.activity import events_visible
from memstore.models import Exchange, ExchangeSource, Fact

ROLES = ExchangeSource.ROLES  # retrieved, injected, cited: the order they are shown in


@dataclass(frozen=True, slots=True)
class Source:
    """One fact behind a reply: its row as memory holds it now, or None when it is no longer in
    memory (forgotten, or a cited text never saved)."""

    scope: str
    fact_id: str
    row: FactRow | None


@dataclass(frozen=True, slots=True)
class ExchangeSources:
    """An exchange's three lists."""

    retrieved: list[Source]
    injected: list[Source]
    cited: list[Source]

    @property
    def empty(self) -> bool:
        return not (self.retrieved or self.injected or self.cited)


@dataclass(frozen=True, slots=True)
class Seen:
    """One reply a fact was behind: which bot, room and reply, when, and in which roles."""

    exchange_id: int
    bot: str
    room_id: str
    room_kind: str
    reply_id: str
    at: datetime
    roles: list[str]


@dataclass(frozen=True, slots=True)
class ExchangeCounts:
    """One exchange of a bot and how many facts it records in each role."""

    exchange_id: int
    room_id: str
    room_kind: str
    person: str
    reply_id: str
    at: datetime
    retrieved: int
    injected: int
    cited: int


def _visible_exchanges(viewer: Viewer):
    return events_visible(Exchange.objects.all(), None if viewer.staff else viewer.person)


def exchange_sources(*, exchange_id: int, viewer: Viewer) -> ExchangeSources:
    """What was retrieved, injected and cited for this exchange (NotAllowed if the person may
    not see the exchange); facts the viewer may not see are left out."""
    if not _visible_exchanges(viewer).filter(pk=exchange_id).exists():
        raise NotAllowed("That exchange is from another person's direct room.")
    records = list(
        ExchangeSource.objects.filter(exchange_id=exchange_id).values_list(
            "role", "scope_key", "fact_id"
        )
    )
    rows = _rows_now({(scope, fact_id) for _, scope, fact_id in records if scope}, viewer)
    lists: dict[str, list[Source]] = {role: [] for role in ROLES}
    for role, scope, fact_id in records:
        if scope and not viewer.may_see(Scope.parse(scope)):
            continue
        lists[role].append(Source(scope, fact_id, rows.get((scope, fact_id))))
    for sources in lists.values():
        sources.sort(key=lambda s: (s.row is None, s.row.fact.text if s.row else s.fact_id))
    return ExchangeSources(**lists)


def _rows_now(refs: set[tuple[str, str]], viewer: Viewer) -> dict[tuple[str, str], FactRow]:
    """Each (scope, fact id) as a row from the synced index (its newest copy), if still there."""
    scopes = {scope for scope, _ in refs if viewer.may_see(Scope.parse(scope))}
    if not scopes:
        return {}
    index_sync(scopes=[Scope.parse(s) for s in sorted(scopes)])
    wanted = Q(pk__in=[])
    for scope, fact_id in refs:
        if scope in scopes:
            wanted |= Q(scope_key=scope, fact_id=fact_id)
    found = Fact.objects.filter(wanted).annotate(file_path=F("file__path")).order_by("day", "id")
    facts = {(row.scope_key, row.fact_id): stored_from_row(row) for row in found}
    keys = list(facts)
    return dict(zip(keys, rows_of([facts[k] for k in keys]), strict=True))


def fact_seen_by(*, scope: str, fact_id: str, viewer: Viewer, limit: int = 100) -> list[Seen]:
    """The replies this fact was behind, newest first, among the exchanges the person may see."""
    if not viewer.may_see(Scope.parse(scope)):
        raise FactNotFound("No such fact.")
    records = (
        ExchangeSource.objects.filter(
            scope_key=scope,
            fact_id=fact_id,
            exchange__in=_visible_exchanges(viewer),
        )
        .select_related("exchange")
        .order_by("-exchange__created_at", "-exchange_id")
    )
    seen: dict[int, Seen] = {}
    for record in records[: limit * len(ROLES)]:
        e = record.exchange
        item = seen.setdefault(
            e.pk, Seen(e.pk, e.bot, e.room_id, e.room_kind, e.reply_id, e.created_at, [])
        )
        item.roles.append(record.role)
    for item in seen.values():
        item.roles.sort(key=ROLES.index)
    return list(seen.values())[:limit]


def bot_sources(*, bot: str, viewer: Viewer, limit: int = 50) -> list[ExchangeCounts]:
    """This bot's newest exchanges the person may see, with their counts per role."""
    counts = {
        f"n_{role}": Count("sources", filter=Q(sources__role=role), distinct=True) for role in ROLES
    }
    rows = (
        _visible_exchanges(viewer)
        .filter(bot=bot)
        .annotate(**counts)
        .order_by("-created_at", "-id")[:limit]
    )
    return [
        ExchangeCounts(
            exchange_id=e.pk,
            room_id=e.room_id,
            room_kind=e.room_kind,
            person=e.person,
            reply_id=e.reply_id,
            at=e.created_at,
            retrieved=e.n_retrieved,
            injected=e.n_injected,
            cited=e.n_cited,
        )
        for e in rows
    ]
