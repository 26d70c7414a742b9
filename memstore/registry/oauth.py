"""OAuth 2.1 codes and tokens for MCP clients: a person's allowed connection (`OAuthGrant`),
codes with PKCE (S256), access and refresh tokens (refresh tokens rotate; a spent one presented
again ends the connection), revocation (RFC 7009) and verifying an access token on a call.

Codes and tokens are random, shown once and stored as SHA-256 digests, like bot tokens
(`memstore.registry.tokens`).

A connection lives only as long as what allowed it: its person's console account is active, a
connection "as me" still has its bot linked to that person, and one that may name any room was
made by someone still staff. A call checks the account and staff, a refresh or a code exchange
checks all three, and one that finds any no longer true ends the connection (refused at once,
and for good); unlinking a person and a bot ends the connections made as them for it as it
happens (`grants_end_unlinked`).

Does not: register clients or check authorization requests (`memstore.registry.oauth_clients`),
decide who may consent to what (`memstore.console.connections`), or speak HTTP.
"""

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from memstore.errors import OAuthRefused
from memstore.models import (
    Bot,
    OAuthClient,
    OAuthCode,
    OAuthGrant,
    OAuthToken,
    Person,
    PersonLink,
    ProjectMember,
)
from memstore.registry.bots import bot_row
from memstore.registry.oauth_clients import SCOPES, AuthRequest, scopes_ordered
from memstore.registry.redirect_uris import redirect_uri_canonical

ACCESS_LIFETIME = timedelta(hours=1)
REFRESH_LIFETIME = timedelta(days=30)
CODE_LIFETIME = timedelta(minutes=2)
KEPT_AFTER_EXPIRY = timedelta(days=1)
ACCESS_START = "mco_"
REFRESH_START = "mcr_"


@dataclass(frozen=True, slots=True)
class Binding:
    """The room a connection is bound to: its tools then need no room arguments."""

    room_id: str
    room_kind: str
    person: str | None


@dataclass(frozen=True, slots=True)
class TokenPair:
    """What the token endpoint answers (RFC 6749 §5.1); the tokens are never stored."""

    access_token: str
    refresh_token: str
    expires_in: int
    scopes: tuple[str, ...]

    def body(self) -> dict:
        return {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": self.refresh_token,
            "scope": " ".join(self.scopes),
        }


@dataclass(frozen=True, slots=True)
class OAuthCaller:
    """Who an access token speaks for: the bot, its joined projects, the granted scopes, the
    room the connection is bound to (None: each call names its room) and the person who made
    the connection (their registered name, else their username), who acts through the bot."""

    bot: str
    joined: frozenset[str]
    scopes: frozenset[str]
    binding: Binding | None
    read_only: frozenset[str] = frozenset()  # joined projects the bot may read, not write
    person: str = ""


def code_issue(
    *,
    request: AuthRequest,
    user_id: int,
    bot: str,
    scopes: tuple[str, ...],
    binding: Binding | None,
) -> str:
    """A person allowed `request`: record the connection and answer with the redirect URL that
    carries a fresh one-time code."""
    if not scopes or not set(scopes) <= set(SCOPES):
        raise OAuthRefused("invalid_scope", "Choose at least one thing the bot may do.")
    client = OAuthClient.objects.get(client_id=request.client.client_id)
    code = secrets.token_urlsafe(32)
    with transaction.atomic():
        grant = OAuthGrant.objects.create(
            client=client,
            bot=bot_row(slug=bot),
            user_id=user_id,
            scopes=list(scopes_ordered(scopes)),
            resource=request.resource,
            room_id=binding.room_id if binding else "",
            room_kind=binding.room_kind if binding else "",
            person=(binding.person or "") if binding else "",
        )
        OAuthCode.objects.create(
            grant=grant,
            digest=_digest(code),
            challenge=request.challenge,
            redirect_uri=request.redirect_uri,
            expires_at=timezone.now() + CODE_LIFETIME,
        )
    return request.answer(code=code)


def code_exchange(
    *, client_id: str, code: str, redirect_uri: str, verifier: str, resource: str
) -> TokenPair:
    """Trade a code for tokens (OAuthRefused invalid_grant when the code is unknown, used,
    expired, another client's, for another redirect URI, or the PKCE verifier does not match).
    A code presented twice also revokes everything issued with it (RFC 6749 §4.1.2). The
    client's earlier connections for this person end (`_replaced`)."""
    _client_known(client_id)
    now = timezone.now()
    with transaction.atomic():  # no raising inside: a refusal's revocations must be kept
        row = (
            OAuthCode.objects.select_for_update()
            .select_related("grant__client", "grant__user")
            .filter(digest=_digest(code))
            .first()
        )
        problem = _code_problem(row, client_id, redirect_uri, verifier, resource, now)
        if row is not None and row.grant.client.client_id == client_id:
            if row.used_at is not None:
                _grant_end(row.grant, now)
            else:
                row.used_at = now  # spent by any attempt, so a guessed verifier gets one try
                row.save(update_fields=["used_at"])
        pair = None
        if problem is None:
            _replaced(row.grant, now)
            pair = _issue(row.grant, now)
    if pair is None:
        raise problem
    return pair


def _replaced(grant: OAuthGrant, now) -> None:
    """The same client signing the same person in again (a new device login, more scopes)
    replaces its earlier connections: they end once the new one has its tokens."""
    earlier = OAuthGrant.objects.filter(
        client_id=grant.client_id, user_id=grant.user_id, revoked_at__isnull=True
    ).exclude(pk=grant.pk)
    for other in earlier:
        _grant_end(other, now)


def _code_problem(row, client_id, redirect_uri, verifier, resource, now) -> OAuthRefused | None:
    if row is None or row.grant.client.client_id != client_id:
        return _grant_error("The authorization code is unknown or belongs to another client.")
    if row.used_at is not None:
        return _grant_error(
            "The authorization code was already used; the connection it made is revoked."
        )
    if row.expires_at <= now:
        return _grant_error("The authorization code expired; sign in again.")
    if redirect_uri_canonical(redirect_uri) != row.redirect_uri:
        return _grant_error("redirect_uri differs from the one the code was issued for.")
    if not _pkce_matches(verifier, row.challenge):
        return _grant_error("The PKCE code_verifier does not match the code_challenge.")
    if row.grant.revoked_at is not None:
        return _grant_error("The connection was revoked.")
    return _lapsed(row.grant, now) or _resource_problem(resource, row.grant)


def token_refresh(*, client_id: str, refresh_token: str, resource: str) -> TokenPair:
    """A new access token and a new refresh token for a live refresh token, which is spent.
    A spent refresh token presented again revokes the whole connection (OAuth 2.1 §4.3.1)."""
    _client_known(client_id)
    now = timezone.now()
    with transaction.atomic():  # no raising inside: a refusal's revocations must be kept
        row = (
            OAuthToken.objects.select_for_update()
            .select_related("grant__client", "grant__user")
            .filter(digest=_digest(refresh_token), kind=OAuthToken.REFRESH)
            .first()
        )
        problem = _refresh_problem(row, client_id, resource, now)
        if problem is None:
            row.used_at = now
            row.save(update_fields=["used_at"])
        elif row is not None and row.used_at is not None and row.revoked_at is None:
            _grant_end(row.grant, now)
        pair = _issue(row.grant, now) if problem is None else None
    if pair is None:
        raise problem
    return pair


def _refresh_problem(row, client_id, resource, now) -> OAuthRefused | None:
    if row is None or row.grant.client.client_id != client_id:
        return _grant_error("The refresh token is unknown or belongs to another client.")
    if row.revoked_at is not None or row.grant.revoked_at is not None:
        return _grant_error("The refresh token was revoked; sign in again.")
    if row.used_at is not None:
        return _grant_error(
            "The refresh token was already used; the connection is revoked. Sign in again."
        )
    if row.expires_at <= now:
        return _grant_error("The refresh token expired; sign in again.")
    return _lapsed(row.grant, now) or _resource_problem(resource, row.grant)


def _lapsed(grant: OAuthGrant, now) -> OAuthRefused | None:
    """A refusal, and the connection ended, if what allowed it no longer holds."""
    user = grant.user
    why = ""
    if not user.is_active:
        why = "The account that allowed this connection was deactivated."
    elif (
        grant.person
        and not PersonLink.objects.filter(person__name=grant.person, bot_id=grant.bot_id).exists()
    ):
        why = f"The bot is no longer linked to {grant.person}."
    elif not grant.room_id and not user.is_staff:
        why = "Only staff keep connections that may name any room."
    if not why:
        return None
    _grant_end(grant, now)
    return _grant_error(why + " The connection has ended.")


def token_revoke_any(*, token: str, client_id: str = "") -> None:
    """RFC 7009: revoke an access or refresh token; a refresh token takes its whole connection
    with it. Unknown tokens (and another client's) are ignored, as the RFC asks."""
    now = timezone.now()
    row = OAuthToken.objects.select_related("grant__client").filter(digest=_digest(token)).first()
    if row is None or (client_id and row.grant.client.client_id != client_id):
        return
    if row.kind == OAuthToken.REFRESH:
        _grant_end(row.grant, now)
    elif row.revoked_at is None:
        row.revoked_at = now
        row.save(update_fields=["revoked_at"])


def access_verify(*, token: str, resource: str) -> OAuthCaller | None:
    """Who a live access token issued for `resource` speaks for, or None."""
    if not token.startswith(ACCESS_START) or len(token) > 200:
        return None
    with connection.cursor() as cursor:
        # Every OAuth call runs this first: plain SQL, as `token_verify` (the ORM's compile
        # cost ten times the query).
        cursor.execute(_VERIFY_SQL, [_digest(token), timezone.now()])
        found = cursor.fetchone()
    if found is None:
        return None
    grant_id, live, slug, scopes, granted_for, room_id, room_kind, person, *rest = found
    joined, read_only, made_by = rest
    if not live:
        grant_end(grant_id=grant_id)
        return None
    if granted_for.rstrip("/") != resource.rstrip("/"):
        return None
    binding = Binding(room_id=room_id, room_kind=room_kind, person=person or None)
    return OAuthCaller(
        bot=slug,
        joined=frozenset(joined),
        scopes=frozenset(json.loads(scopes) if isinstance(scopes, str) else scopes),
        binding=binding if room_id else None,
        read_only=frozenset(read_only),
        person=made_by,
    )


# `live`: the account is active (and staff, for a connection that may name any room), as
# `_lapsed`, in the same query. The person's link to the bot is not asked here: it costs this
# query (every OAuth call's first step) about 1 ms more, and `person_unlink`, the one way a link
# goes, ends the connections made as that person (`grants_end_unlinked`).
_VERIFY_SQL = f"""
    SELECT g.id,
           u.is_active AND (g.room_id <> '' OR u.is_staff),
           b.slug, g.scopes, g.resource, g.room_id, g.room_kind, g.person,
           ARRAY(SELECT p.project FROM {ProjectMember._meta.db_table} p WHERE p.bot_id = b.id),
           ARRAY(SELECT p.project FROM {ProjectMember._meta.db_table} p
                 WHERE p.bot_id = b.id AND p.access = 'read'),
           COALESCE((SELECT n.name FROM {Person._meta.db_table} n WHERE n.user_id = u.id),
                    u.username)
    FROM {OAuthToken._meta.db_table} t
    JOIN {OAuthGrant._meta.db_table} g ON g.id = t.grant_id
    JOIN {Bot._meta.db_table} b ON b.id = g.bot_id
    JOIN {OAuthGrant._meta.get_field("user").related_model._meta.db_table} u ON u.id = g.user_id
    WHERE t.digest = %s AND t.kind = 'access' AND t.revoked_at IS NULL AND t.expires_at > %s
      AND g.revoked_at IS NULL
"""


def _issue(grant: OAuthGrant, now) -> TokenPair:
    # The connection's rows past their expiry by a day go (a spent refresh token is kept until
    # it expires, so a replay is still recognised and ends the connection).
    stale = now - KEPT_AFTER_EXPIRY
    OAuthToken.objects.filter(grant=grant, expires_at__lt=stale).delete()
    OAuthCode.objects.filter(grant=grant, expires_at__lt=stale).delete()
    access = ACCESS_START + secrets.token_urlsafe(32)
    refresh = REFRESH_START + secrets.token_urlsafe(32)
    OAuthToken.objects.bulk_create(
        [
            OAuthToken(
                grant=grant,
                kind=OAuthToken.ACCESS,
                digest=_digest(access),
                expires_at=now + ACCESS_LIFETIME,
            ),
            OAuthToken(
                grant=grant,
                kind=OAuthToken.REFRESH,
                digest=_digest(refresh),
                expires_at=now + REFRESH_LIFETIME,
            ),
        ]
    )
    return TokenPair(
        access_token=access,
        refresh_token=refresh,
        expires_in=int(ACCESS_LIFETIME.total_seconds()),
        scopes=tuple(grant.scopes),
    )


def grant_end(*, grant_id: int, user_id: int | None = None) -> bool:
    """Revoke a connection and every token under it (only `user_id`'s, when given)."""
    rows = OAuthGrant.objects.filter(pk=grant_id, revoked_at__isnull=True)
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    grant = rows.first()
    if grant is None:
        return False
    _grant_end(grant, timezone.now())
    return True


def grants_end_unlinked(*, person: str, bot: str) -> int:
    """End the connections "as `person`" made for `bot` (the two were just unlinked); how many."""
    now = timezone.now()
    rows = OAuthGrant.objects.filter(person=person, bot__slug=bot, revoked_at__isnull=True)
    ended = 0
    for grant in rows:
        _grant_end(grant, now)
        ended += 1
    return ended


def _grant_end(grant: OAuthGrant, now) -> None:
    OAuthGrant.objects.filter(pk=grant.pk, revoked_at__isnull=True).update(revoked_at=now)
    grant.tokens.filter(revoked_at__isnull=True).update(revoked_at=now)


def _resource_problem(resource: str, grant: OAuthGrant) -> OAuthRefused | None:
    if resource and resource.rstrip("/") != grant.resource.rstrip("/"):
        return OAuthRefused("invalid_target", f"resource must be {grant.resource}.")
    return None


def _client_known(client_id: str) -> None:
    if not client_id or not OAuthClient.objects.filter(client_id=client_id).exists():
        raise OAuthRefused(
            "invalid_client", "Send the client_id this server registered.", status=401
        )


def _pkce_matches(verifier: str, challenge: str) -> bool:
    if not 43 <= len(verifier) <= 128:
        return False
    digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
    computed = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    return secrets.compare_digest(computed, challenge)


def _grant_error(message: str) -> OAuthRefused:
    return OAuthRefused("invalid_grant", message)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()
