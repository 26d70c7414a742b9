"""Rooms a bot can't forge: signed room tickets, and the kind (and person) a room is bound to.

A room's kind, and a direct room's person, are fixed by the first answered call that names the
room (a `RoomBinding`): a call is checked against the binding first (`room_check`) and binds the
room once it was answered (`room_bind`); a later call claiming another kind or person is
refused with `room_conflict`, and a refused call binds nothing.
Bindings are workspace-wide, keyed by room id alone, like legacy room folders: a chat platform's
room id names one conversation whichever bot speaks in it, so a second bot can't call the team
room "direct" to reach a person's memory, and one bot can't re-kind a room another bot uses.
Staff reset a binding in the console (`room_reset`).

With `settings.ROOM_TICKET_KEY` set, every call also carries a ticket the chat platform signed:
`v1.<expires>.<hex HMAC-SHA256>` over bot, room id, kind, person (lower-cased), projects
(sorted, comma-joined) and expiry, and for a call claiming a private conversation
(`X-Room-Private`) one more line, `private`: that claim decides where every later save in the
room goes, so the platform vouches for it too; a ticket for a call that claims nothing signs
exactly what it signed before the line existed. `room_ticket` makes one (the platform's side, as in
docs/api.md); `ticket_check` verifies one. What a context may read and write is
`memstore.rooms.access`; who a bot may act for is `memstore.registry.people`.
"""

import hashlib
import hmac
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from memstore.errors import (
    InvalidName,
    NotAllowed,
    RoomConflict,
    TicketExpired,
    TicketMissing,
    TicketRefused,
)
from memstore.facts.markdown import parse_text
from memstore.facts.paths import Scope, memory_root
from memstore.models import RoomBinding
from memstore.registry.generation import GenerationCache

TICKET_VERSION = "v1"
_TICKET_RE = re.compile(r"v1\.(?P<expires>[0-9]{1,12})\.(?P<signature>[0-9a-fA-F]{64})", re.ASCII)


def ticket_message(
    *,
    bot: str,
    room_id: str,
    kind: str,
    person: str,
    projects: Iterable[str],
    expires: int,
    private: bool = False,
) -> bytes:
    """The exact bytes a room ticket signs (one field per line; `private`: a last line
    `private`, for a call claiming a private conversation)."""
    fields = [
        TICKET_VERSION,
        bot,
        room_id,
        kind,
        (person or "").lower(),
        ",".join(sorted(set(projects))),
        str(expires),
    ] + ["private"] * private
    return "\n".join(fields).encode()


def room_ticket(
    *,
    key: str,
    bot: str,
    room_id: str,
    kind: str,
    person: str = "",
    projects: Iterable[str] = (),
    ttl: int = 300,
    private: bool = False,
) -> str:
    """A ticket for one bot in one room, valid `ttl` seconds (what a platform issues);
    `private`: the room is a private conversation (the call sends `X-Room-Private: true`)."""
    expires = int(time.time()) + ttl
    message = ticket_message(
        bot=bot,
        room_id=room_id,
        kind=kind,
        person=person,
        projects=projects,
        expires=expires,
        private=private,
    )
    signature = hmac.new(key.encode(), message, hashlib.sha256).hexdigest()
    return f"{TICKET_VERSION}.{expires}.{signature}"


def ticket_for_consent(
    *, bot: str, room_id: str, kind: str, person: str, projects: Iterable[str]
) -> str | None:
    """The ticket this server signs for a call through an MCP connection bound "as me" to a
    room (None when tickets are off). There the console is the platform: the person signed in
    and allowed the bot in that room, which vouches for the room, kind and person at least as
    well as a chat platform's ticket, and the client can't name another room."""
    key = settings.ROOM_TICKET_KEY
    if not key:
        return None
    return room_ticket(
        key=key, bot=bot, room_id=room_id, kind=kind, person=person, projects=projects, ttl=60
    )


def ticket_check(
    *,
    ticket: str | None,
    bot: str,
    room_id: str,
    kind: str,
    person: str,
    projects: Iterable[str],
    now: float | None = None,
    private: bool = False,
) -> None:
    """Nothing if tickets are off or this one vouches for exactly this call (`private`: the
    call claims a private conversation, which the ticket must sign as well); TicketMissing,
    TicketRefused (malformed or signed for another call) or TicketExpired otherwise."""
    key = settings.ROOM_TICKET_KEY
    if not key:
        return
    if not ticket:
        raise TicketMissing(
            "This deployment wants every call to carry X-Room-Ticket, signed by the chat "
            "platform for this bot, room, kind, person and projects."
        )
    found = _TICKET_RE.fullmatch(ticket)
    if found is None:
        # ASCII only: str.isdigit() takes "²" and int() then fails; compare_digest refuses
        # non-ASCII text. Anything but the exact shape is a refused ticket, never a crash.
        raise TicketRefused("The room ticket is not a v1 ticket (v1.<expires>.<signature>).")
    expires_text, signature = found["expires"], found["signature"]
    expected = hmac.new(
        key.encode(),
        ticket_message(
            bot=bot,
            room_id=room_id,
            kind=kind,
            person=person,
            projects=projects,
            expires=int(expires_text),
            private=private,
        ),
        hashlib.sha256,
    ).hexdigest()
    if not hmac.compare_digest(expected, signature.lower()):
        raise TicketRefused(
            "The room ticket was not signed for this call: bot, room, kind, person, "
            "projects and whether the room is private (X-Room-Private) must be exactly those "
            "the platform signed."
        )
    if int(expires_text) < (time.time() if now is None else now):
        raise TicketExpired("The room ticket has expired; ask the platform for a new one.")


@dataclass(frozen=True, slots=True)
class Binding:
    """A room as first named: its kind, its person (direct rooms) and the bot that named it."""

    room_id: str
    kind: str
    person: str
    first_bot: str


def room_check(
    *,
    room_id: str,
    kind: str,
    person: str | None,
    generation: int | None = None,
    private: bool | None = None,
) -> bool:
    """Whether the room is bound already (to this kind and, direct rooms, this person; else
    RoomConflict; so is a call calling a shared room private, or a private one not: `private`
    None claims neither). Binds nothing: only an answered
    call binds (`room_bind`). With the call's
    authorization `generation` (`memstore.registry.generation`), a binding this process read
    at that generation is judged without a query (a reset or a new binding moves it); an
    unbound room is always asked again."""
    row = _bindings.get(room_id, generation)
    if row is None:
        row = RoomBinding.objects.filter(room_id=room_id).first()
        if row is not None:
            _bindings.put(room_id, generation, row)
    if row is not None:
        _judge(row, room_id=room_id, kind=kind, person=person, private=private)
    return row is not None


_bindings: GenerationCache[RoomBinding] = GenerationCache()  # room id -> its binding row


def room_bind(
    *, room_id: str, kind: str, person: str | None, bot: str, private: bool = False
) -> Binding:
    """The room's binding, made by this call if it is the first to name the room; RoomConflict
    if it was bound to another kind or (direct rooms) another person."""
    wanted = person if kind == "direct" else ""
    row = RoomBinding.objects.filter(room_id=room_id).first()
    if row is None:
        try:
            with transaction.atomic():
                row = RoomBinding.objects.create(
                    room_id=room_id,
                    kind=kind,
                    person=wanted or "",
                    first_bot=bot,
                    private=private and kind == "group",
                )
        except IntegrityError:  # another call bound it a moment ago: judge against that one
            row = RoomBinding.objects.get(room_id=room_id)
    # Only a private claim is judged here: `private` False is "not claimed" (the caller's
    # context says what the room is; a call's explicit claim was judged by `room_check`).
    _judge(row, room_id=room_id, kind=kind, person=person, private=private or None)
    return _binding(row)


def _judge(
    row: RoomBinding, *, room_id: str, kind: str, person: str | None, private: bool | None = None
) -> None:
    wanted = person if kind == "direct" else ""
    if private is not None and private != row.private and row.kind == kind == "group":
        bound, claimed = ("private", "shared") if row.private else ("shared", "private")
        raise RoomConflict(
            f"Room {room_id!r} is a {bound} group room (fixed by the first call naming it), "
            f"not a {claimed} one; staff can reset it in the console."
        )
    if row.kind != kind:
        raise RoomConflict(
            f"Room {room_id!r} is a {row.kind} room (fixed by the first call naming it), "
            f"not {kind}; staff can reset it in the console."
        )
    if kind == "direct" and row.person != wanted:
        raise RoomConflict(
            f"Room {room_id!r} is a direct room with someone else (fixed by the first call "
            "naming it); staff can reset it in the console."
        )


def room_reset(*, room_id: str) -> bool:
    """Forget a room's binding, so the next call naming it binds it afresh; False if unbound.
    A private conversation whose memory is still on disk is not reset (NotAllowed): without its
    binding that memory would be a legacy room's, shown to everyone in the console and open to
    the room's next binding, whatever it claims."""
    binding = RoomBinding.objects.filter(room_id=room_id).first()
    if binding is None:
        return False
    if binding.private and (held := _memory_files(room_id)):
        raise NotAllowed(
            f"Room {room_id} is a private conversation and its memory is still there ({held:,} "
            f"file{'s' if held != 1 else ''} under rooms/{room_id}/memory): a reset would show it "
            "to everyone as a legacy room's. Delete its facts first (the bot's page, tab "
            "Private conversations), then reset the room."
        )
    binding.delete()
    return True


def _memory_files(room_id: str) -> int:
    """How many of the room's memory files hold a fact line (the files are the truth)."""
    try:
        folder = memory_root() / Scope("room", room_id).rel
    except InvalidName:  # not a name a room folder can have: no memory on disk
        return 0
    return sum(
        1
        for path in folder.rglob("*.md")
        if any(line.fact for line in parse_text(path.read_text(errors="replace")))
    )


def rooms_bound(*, first_bot: str | None = None, person: str | None = None) -> list[Binding]:
    """Bound rooms by id (only those a given bot named first, or the direct rooms with a given
    person, if asked)."""
    rows = RoomBinding.objects.all()
    if first_bot is not None:
        rows = rows.filter(first_bot=first_bot)
    if person is not None:
        rows = rows.filter(kind="direct", person=person)
    return [_binding(row) for row in rows.order_by("room_id")]


def rooms_private() -> frozenset[str]:
    """The rooms bound as private conversations (`X-Room-Private`): their memory folders look
    like legacy room memory, but what is in them belongs to the conversation (one query)."""
    return frozenset(RoomBinding.objects.filter(private=True).values_list("room_id", flat=True))


def _binding(row: RoomBinding) -> Binding:
    return Binding(room_id=row.room_id, kind=row.kind, person=row.person, first_bot=row.first_bot)
