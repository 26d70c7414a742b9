"""Provenance a person can follow: from a learned fact (`src=room:<id>/msg:<id>`,
`via=learner`) to the exchange it came from (room, message ids, the text as stored, the model's
decisions), and from there to every fact that exchange produced.

Privacy as everywhere in the console: an exchange of another person's direct room is theirs
(and staff's); facts in another person's user memory are left out.

Does not: decide wording (the console's presenters do).
"""

import re
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F

from memstore.console.facts import FactRow, bot_tabs, rows_of
from memstore.console.viewer import Viewer
from memstore.errors import FactNotFound, NotAllowed
from memstore.facts.paths import Scope
from memstore.facts.records import stored_from_row
from memstore.index import index_sync
from memstore.learning import Activity, activity_list
from memstore.learning.pipeline import provenance
from memstore.models import Exchange, Fact

_SRC_RE = re.compile(r"room:(?P<room>[^/\s]+)/msg:(?P<msg>\S+)")


@dataclass(frozen=True, slots=True)
class ExchangeTrace:
    """One exchange as stored, what the learner decided about it, and the facts it produced."""

    id: int
    bot: str
    room_id: str
    room_kind: str
    person: str
    message_id: str
    reply_id: str
    message: str
    reply: str
    status: str
    reason: str
    at: datetime
    src: str
    decisions: list[Activity]
    facts: list[FactRow]


def exchange_trace(
    *, bot: str, viewer: Viewer, exchange_id: int | None = None, src: str = ""
) -> ExchangeTrace:
    """The exchange with this id, or the one a fact's `src=` names (FactNotFound if none)."""
    rows = Exchange.objects.filter(bot=bot)
    if exchange_id is not None:
        rows = rows.filter(pk=exchange_id)
    elif match := _SRC_RE.fullmatch(src.strip()):
        rows = rows.filter(room_id=match["room"], message_id=match["msg"])
    else:
        raise FactNotFound("That fact does not say which exchange it came from.")
    exchange = rows.order_by("-id").first()
    if exchange is None:
        raise FactNotFound("That exchange is not stored (it may predate the learner's queue).")
    if exchange.room_kind == "direct" and not viewer.staff and exchange.person != viewer.person:
        raise NotAllowed("That exchange is from another person's direct room.")
    source = provenance(exchange.room_id, exchange.message_id)
    decisions = activity_list(exchange_id=exchange.pk, limit=200).items
    return ExchangeTrace(
        id=exchange.pk,
        bot=exchange.bot,
        room_id=exchange.room_id,
        room_kind=exchange.room_kind,
        person=exchange.person,
        message_id=exchange.message_id,
        reply_id=exchange.reply_id,
        message=exchange.message,
        reply=exchange.reply,
        status=exchange.status,
        reason=exchange.reason,
        at=exchange.created_at,
        src=source,
        decisions=list(decisions),
        facts=_produced(bot, viewer, source),
    )


def _produced(bot: str, viewer: Viewer, src: str) -> list[FactRow]:
    scopes: list[Scope] = [
        s for t in bot_tabs(bot=bot, viewer=viewer, counts=False) for s in t.scopes
    ]
    index_sync(scopes=scopes)
    found = (
        Fact.objects.filter(scope_key__in=[str(s) for s in scopes], meta__src=src)
        .annotate(file_path=F("file__path"))
        .order_by("-day", "id")
    )
    facts = [stored_from_row(row) for row in found[:200]]
    visible = [f for f in facts if viewer.may_see(f.parsed_scope)]
    return rows_of(visible)
