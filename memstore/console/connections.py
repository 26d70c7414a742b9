"""Connecting an MCP client through the console (OAuth consent) and the connections a person
made: which bots a signed-in person may connect, as what, and revoking a connection.

Who may consent to what: staff connect any registered bot, either bound to a room and person
or unbound (the client names the room in every call, as with a bot token). Anyone else connects
only bots linked to them, and only "as me, in a direct room": a connection never lets a client
act for anyone but the person who allowed it, and never outside their direct room, unless staff
made it.

Which room "as me" binds: one the person is already in (a room already bound as a direct room
with them), or a new private room of theirs, named `mcp-<bot>-<person>` (optionally followed
by `:` and a suffix: no bot or person name holds a colon), bound to them as the person allows
it. Any other room id is refused: a
consent never claims a room nobody has used yet (a group channel the bot will join, another
person's direct room), whose real calls would then be refused as a conflict.

Does not: check OAuth requests or issue codes and tokens (`memstore.registry.oauth`).
"""

import re
from dataclasses import dataclass
from datetime import datetime

from memstore.console.tokens import BotIdentity
from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed, OAuthRefused
from memstore.models import Bot, OAuthGrant
from memstore.registry.oauth import Binding, code_issue, grant_end
from memstore.registry.oauth_clients import AuthRequest
from memstore.registry.people import person_bots
from memstore.rooms.tickets import room_bind, room_check, rooms_bound
from memstore.vocabulary import ROOM_PATTERN

AS_ME = "me"
ANY_ROOM = "any"


@dataclass(frozen=True, slots=True)
class Connection:
    """A connection a person allowed, as their list shows it."""

    id: int
    client: str
    bot: str
    scopes: tuple[str, ...]
    room: str  # "dm-ann (direct, as ann)" or "" when the client names the room
    created_at: datetime
    signed_in_at: datetime | None  # the last time it got tokens (sign-in or refresh)


def consent_bots(*, viewer: Viewer) -> list[BotIdentity]:
    """The bots this person may connect a client to (registered ones only)."""
    rows = Bot.objects.order_by("slug")
    if not viewer.staff:
        rows = rows.filter(slug__in=person_bots(person=viewer.person))
    return [BotIdentity(slug=b.slug, display_name=b.display_name, registered=True) for b in rows]


def consent_allow(
    *,
    viewer: Viewer,
    user_id: int,
    request: AuthRequest,
    bot: str,
    scopes: tuple[str, ...],
    bind: str,
    room_id: str,
) -> str:
    """Allow `request` for `bot`: the redirect URL (with a code) to send the browser to.
    NotAllowed when this person may not connect that bot that way."""
    if bot not in {b.slug for b in consent_bots(viewer=viewer)}:
        raise NotAllowed(
            f"You may not connect {bot!r}: only bots linked to you (staff link people to bots "
            "on the People page)."
        )
    if bind == ANY_ROOM:
        if not viewer.staff:
            raise NotAllowed("Only staff make connections that may name any room.")
        binding = None
    elif bind == AS_ME:
        if bot not in person_bots(person=viewer.person):
            raise NotAllowed(
                f"{bot} is not linked to you ({viewer.person}), so it may not act as you: staff "
                "link people to bots on the People page."
            )
        room_id = _room_of_mine(viewer=viewer, bot=bot, room_id=room_id)
        binding = Binding(room_id=room_id, room_kind="direct", person=viewer.person)
    else:
        raise OAuthRefused("invalid_request", "Choose how the bot connects.", redirect=False)
    return code_issue(request=request, user_id=user_id, bot=bot, scopes=scopes, binding=binding)


def _room_of_mine(*, viewer: Viewer, bot: str, room_id: str) -> str:
    """The room a connection "as me" is bound to: `room_id` (or the default new room) if it is a
    direct room with this person already, or a new private room of theirs, bound to them now.
    OAuthRefused for a malformed id, RoomConflict for a room bound otherwise, NotAllowed for a
    room nobody has used yet that is not named as theirs."""
    new_room = default_room(viewer=viewer, bot=bot)
    room_id = room_id.strip() or new_room
    if re.fullmatch(ROOM_PATTERN, room_id) is None:
        raise OAuthRefused(
            "invalid_request",
            f"Room id {room_id[:80]!r} may hold only letters, digits and _.:- "
            "(at most 64 characters, starting with a letter or digit).",
            redirect=False,
        )
    # A room someone else's calls already made theirs (or a group room) is refused now, not on
    # the client's first call.
    if room_check(room_id=room_id, kind="direct", person=viewer.person):
        return room_id
    if room_id != new_room and not room_id.startswith(new_room + ":"):
        raise NotAllowed(
            f"Room {room_id!r} is not one you are in: choose one of your direct rooms, or leave "
            f"the room empty for a new private room ({new_room}; {new_room}:<name> for another)."
        )
    room_bind(room_id=room_id, kind="direct", person=viewer.person, bot=bot)
    return room_id


def default_room(*, viewer: Viewer, bot: str) -> str:
    """The new private room a connection "as me" uses unless the person names another."""
    return f"mcp-{bot}-{viewer.person}"[:64]


def rooms_of(*, viewer: Viewer) -> list[str]:
    """The direct rooms this person is already in (a connection "as me" may use any of them)."""
    return [room.room_id for room in rooms_bound(person=viewer.person)]


def client_used(*, user_id: int, client_id: str) -> bool:
    """Whether this person ever allowed this client (a connection, live or ended): only then may
    a bad authorization request send them back to it without asking (a self-registered client
    could otherwise use this server to send people anywhere)."""
    return OAuthGrant.objects.filter(user_id=user_id, client__client_id=client_id).exists()


def connections_of(*, user_id: int) -> list[Connection]:
    """The live connections this person allowed, newest first."""
    rows = (
        OAuthGrant.objects.filter(user_id=user_id, revoked_at__isnull=True)
        .select_related("client", "bot")
        .order_by("-created_at", "-pk")
    )
    found = []
    for grant in rows:
        used = grant.tokens.order_by("-created_at").values_list("created_at", flat=True).first()
        room = f"{grant.room_id} (direct, as {grant.person})" if grant.room_id else ""
        found.append(
            Connection(
                id=grant.pk,
                client=grant.client.name or grant.client.client_id,
                bot=grant.bot.slug,
                scopes=tuple(grant.scopes),
                room=room,
                created_at=grant.created_at,
                signed_in_at=used,
            )
        )
    return found


def connection_end(*, user_id: int, connection_id: int) -> bool:
    """Revoke one of this person's connections (False if it is not theirs or already ended)."""
    return grant_end(grant_id=connection_id, user_id=user_id)
