"""Bots' API tokens: create, verify, list and revoke.

A token is `mct_` plus 43 random URL-safe characters, shown once when created. Only its SHA-256
digest is stored (a token has 256 bits of entropy, so a fast hash is enough), with its first 12
characters as a prefix so a person can tell tokens apart and revoke one. A token authenticates
exactly one bot and carries its grants (memory:read, memory:write: `memstore.registry.grants`);
what that bot may do in a room is `memstore.rooms.access`.

A process remembers the tokens it verified, stamped with the authorization generation
(`memstore.registry.generation`): a warm call costs the one statement that reads it, and a
revoke (or a bot's project joined or left) moves it, so every process asks again on its very
next call.
"""

import hashlib
import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.utils import timezone

from memstore.errors import UnknownToken
from memstore.models import Bot, BotToken, ProjectMember
from memstore.registry.bots import bot_row
from memstore.registry.generation import GENERATION_SQL, GenerationCache, generation_read
from memstore.registry.grants import ALL_GRANTS, grants_clean

TOKEN_START = "mct_"
PREFIX_CHARS = 12
# last_used_at is informative; writing it on every call would add a write to every read.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """What a listing shows about a token (never the token itself)."""

    bot: str
    name: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    scopes: tuple[str, ...] = tuple(sorted(ALL_GRANTS))

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True, slots=True)
class Caller:
    """The bot a token belongs to, the projects it has joined (`read_only`: those it may only
    read) and the token's grants: every API call needs them, so they come from the token's one
    query."""

    bot: str
    joined: frozenset[str]
    traits: tuple[bool, bool] = (False, False)  # the bot's (app, private_memory)
    scopes: frozenset[str] = ALL_GRANTS
    read_only: frozenset[str] = frozenset()
    # the authorization generation this call was checked at: the person link and room binding
    # checks of the same call may trust what was remembered at it (None: remember nothing)
    generation: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class _Verified:
    pk: int
    bot: str
    joined: frozenset[str]
    last_used: datetime | None
    traits: tuple[bool, bool] = (False, False)
    scopes: frozenset[str] = ALL_GRANTS
    read_only: frozenset[str] = frozenset()


_verified: GenerationCache[_Verified] = GenerationCache()  # digest -> what it named


@dataclass(frozen=True, slots=True)
class NewToken:
    """A freshly created token: `token` is shown once and never stored."""

    token: str
    info: TokenInfo


def token_create(*, bot: str, name: str = "", scopes: Iterable[str] = ALL_GRANTS) -> NewToken:
    """Create a token for a registered bot with these grants (every one by default); raises
    UnknownBot, or InvalidName for an unknown grant or none."""
    grants = grants_clean(scopes)
    row = bot_row(slug=bot)
    while True:
        token = TOKEN_START + secrets.token_urlsafe(32)
        prefix = token[:PREFIX_CHARS]
        # Prefixes are how people revoke; keep them unique so a prefix names one token.
        if not BotToken.objects.filter(prefix=prefix).exists():
            break
    saved = BotToken.objects.create(
        bot=row, name=name[:80], prefix=prefix, digest=_digest(token), scopes=list(grants)
    )
    return NewToken(token=token, info=_info(saved, bot))


def token_verify(*, token: str) -> Caller | None:
    """The bot this token belongs to (with its projects), or None if unknown or revoked. One
    statement either way: the generation when this process verified the token before, the
    token's row (which reads the generation too) when not."""
    if not token.startswith(TOKEN_START) or len(token) > 200:
        return None
    digest = _digest(token)
    generation = generation_read() if digest in _verified else None
    known = _verified.get(digest, generation)
    if known is None:
        with connection.cursor() as cursor:
            # Every API call runs this first: plain SQL, because compiling the equivalent ORM
            # query cost seven times as much as running it. The generation is read in the
            # same statement, so what it remembers is never older than its stamp.
            cursor.execute(_VERIFY_SQL, [digest])
            found = cursor.fetchone()
        if found is None:
            return None
        pk, slug, last_used, joined, read_only, app, private_memory, scopes, generation = found
        known = _Verified(
            pk=pk,
            bot=slug,
            joined=frozenset(joined),
            last_used=last_used,
            traits=(app, private_memory),
            scopes=frozenset(json.loads(scopes) if isinstance(scopes, str) else scopes),
            read_only=frozenset(read_only),
        )
    now = timezone.now()
    if known.last_used is None or now - known.last_used > LAST_USED_RESOLUTION:
        with transaction.atomic():
            # A lost "last used" time is harmless: don't make the caller wait for a WAL flush.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
            BotToken.objects.filter(pk=known.pk).update(last_used_at=now)
        known = replace(known, last_used=now)
    _verified.put(digest, generation, known)
    return Caller(
        bot=known.bot,
        joined=known.joined,
        generation=generation,
        traits=known.traits,
        scopes=known.scopes,
        read_only=known.read_only,
    )


_VERIFY_SQL = f"""
    SELECT t.id, b.slug, t.last_used_at,
           ARRAY(SELECT p.project FROM {ProjectMember._meta.db_table} p WHERE p.bot_id = b.id),
           ARRAY(SELECT p.project FROM {ProjectMember._meta.db_table} p
                 WHERE p.bot_id = b.id AND p.access = 'read'),
           b.app, b.private_memory, t.scopes,
           {GENERATION_SQL}
    FROM {BotToken._meta.db_table} t JOIN {Bot._meta.db_table} b ON b.id = t.bot_id
    WHERE t.digest = %s AND t.revoked_at IS NULL
"""


def tokens_list(*, bot: str) -> list[TokenInfo]:
    """Every token of a bot, newest first, revoked ones included."""
    row = bot_row(slug=bot)
    return [_info(t, bot) for t in row.tokens.order_by("-created_at", "-pk")]


def token_revoke(*, prefix: str) -> TokenInfo:
    """Revoke the one token starting with `prefix` (at least 8 characters, or the whole token);
    revoking twice is harmless."""
    prefix = prefix.strip()
    if len(prefix) < 8:
        raise UnknownToken("Give at least the first 8 characters of the token to revoke.")
    rows = BotToken.objects.select_related("bot")
    if len(prefix) >= PREFIX_CHARS:
        rows = rows.filter(prefix=prefix[:PREFIX_CHARS])
    else:
        rows = rows.filter(prefix__startswith=prefix)
    matches = list(rows[:2])
    if len(matches) != 1:
        raise UnknownToken(
            f"No token starts with {prefix!r}."
            if not matches
            else f"More than one token starts with {prefix!r}; give more characters."
        )
    token = matches[0]
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return _info(token, token.bot.slug)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _info(row: BotToken, bot: str | Bot) -> TokenInfo:
    return TokenInfo(
        bot=str(bot),
        name=row.name,
        prefix=row.prefix,
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        revoked_at=row.revoked_at,
        scopes=tuple(row.scopes),
    )
