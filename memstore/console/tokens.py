"""Bots and their tokens in the console: staff register a bot, create its tokens (shown once,
with their grants: memory:read, memory:write), name, list (with last use) and revoke them, and
set the bot's project memberships (read, or read and write); anyone may read how to connect a
bot. A bot with memory on disk but not yet registered is registered when its first token is made.

Does not: hash or verify tokens (`memstore.registry.tokens` does), or decide wording.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed, UnknownBot, UnknownToken
from memstore.models import Bot
from memstore.registry.bots import bot_create, bot_get, project_join
from memstore.registry.grants import ALL_GRANTS, READ_WRITE
from memstore.registry.oauth_clients import SCOPES
from memstore.registry.people import bot_people
from memstore.registry.tokens import NewToken, TokenInfo, token_create, token_revoke, tokens_list

# What each grant and membership allows, as a person reads it beside its checkbox.
GRANT_LABELS = {grant: text.lower() for grant, text in SCOPES.items()}
MEMBERSHIP_LABELS = {"read": "read its memory", READ_WRITE: "read and write its memory"}


def _staff(viewer: Viewer) -> None:
    if not viewer.staff:
        raise NotAllowed("Only staff register bots and manage their tokens.")


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """A bot's slug and the name people know it by."""

    slug: str
    display_name: str
    registered: bool

    @property
    def title(self) -> str:
        """The display name, or the slug when there is none."""
        return self.display_name or self.slug


def bot_identity(*, bot: str) -> BotIdentity:
    """The bot's display name (from the registry) for headings."""
    row = Bot.objects.filter(slug=bot).values_list("display_name", flat=True).first()
    return BotIdentity(slug=bot, display_name=row or "", registered=row is not None)


def console_tokens(*, viewer: Viewer, bot: str) -> list[TokenInfo]:
    """Every token of the bot, newest first (none for a bot not registered yet)."""
    _staff(viewer)
    try:
        return tokens_list(bot=bot)
    except UnknownBot:
        return []


def console_token_create(
    *, viewer: Viewer, bot: str, name: str, scopes: Iterable[str] = ALL_GRANTS
) -> NewToken:
    """A new token for the bot with these grants (registering the bot first if it is not);
    shown once."""
    _staff(viewer)
    if not Bot.objects.filter(slug=bot).exists():
        bot_create(slug=bot)
    return token_create(bot=bot, name=name.strip(), scopes=scopes)


@dataclass(frozen=True, slots=True)
class Membership:
    """A project the bot is in, and what it may do with the project's memory."""

    project: str
    access: str

    @property
    def label(self) -> str:
        return MEMBERSHIP_LABELS[self.access]


def console_memberships(*, viewer: Viewer, bot: str) -> list[Membership]:
    """The bot's projects with their access, by name (none for a bot not registered)."""
    _staff(viewer)
    try:
        info = bot_get(slug=bot)
    except UnknownBot:
        return []
    return [
        Membership(project=p, access="read" if p in info.read_only else READ_WRITE)
        for p in info.projects
    ]


def console_membership_set(*, viewer: Viewer, bot: str, project: str, access: str) -> bool:
    """Put the bot in a project with this access (or change its access); True if it joined."""
    _staff(viewer)
    return project_join(bot=bot, project=project, access=access)


def console_bot_create(*, viewer: Viewer, slug: str, name: str, app: bool) -> BotIdentity:
    """Register a bot from the console (staff); InvalidName when the slug is taken or not
    allowed, with the rule it broke."""
    _staff(viewer)
    bot_create(slug=slug.strip(), display_name=name.strip(), app=app)
    return bot_identity(bot=slug.strip())


def console_token_of(*, viewer: Viewer, bot: str, prefix: str) -> TokenInfo:
    """One of this bot's tokens by its prefix, for staff (UnknownToken if it is not this bot's)."""
    for token in console_tokens(viewer=viewer, bot=bot):
        if token.prefix == prefix:
            return token
    raise UnknownToken("That is not one of this bot's tokens.")


def console_token_revoke(*, viewer: Viewer, bot: str, prefix: str) -> TokenInfo:
    """Revoke one of this bot's tokens by its prefix (UnknownToken if it is not this bot's)."""
    console_token_of(viewer=viewer, bot=bot, prefix=prefix)
    return token_revoke(prefix=prefix)


def connect_person(*, viewer: Viewer, bot: str) -> str | None:
    """The person a connect example may name: the viewer, when the bot is linked to them (its
    direct-room example then answers as printed); None otherwise (a group-room example)."""
    try:
        linked = bot_people(bot=bot)
    except UnknownBot:  # memory on disk, not registered yet: nobody is linked
        return None
    return viewer.person if viewer.person in linked else None
