"""OAuth 2.1 for MCP clients: client registration (RFC 7591), the authorization request, codes
with PKCE (S256 only), access and refresh tokens (refresh tokens rotate), revocation (RFC 7009)
and verifying an access token on a call.

A client is public (no secret: desktop and web MCP clients cannot keep one) and may send people
back only to the redirect URIs it registered, each https or a loopback address (whose port may
change between runs, RFC 8252 §7.3). A connection (`OAuthGrant`) is what a signed-in person
allowed: which bot, which scopes, optionally one room and person. Codes and tokens are random,
shown once and stored as SHA-256 digests, like bot tokens (`memstore.registry.tokens`).

Does not: decide who may consent to what (`memstore.console.connections`), or speak HTTP.
"""

import base64
import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from ipaddress import ip_address
from urllib.parse import urlencode, urlsplit

from django.db import transaction
from django.utils import timezone

from memstore.errors import OAuthRefused
from memstore.models import OAuthClient, OAuthCode, OAuthGrant, OAuthToken, ProjectMember
from memstore.registry.bots import bot_row

READ = "memory:read"
WRITE = "memory:write"
SCOPES = {
    READ: "Search and read memory, and the prompt's memory section",
    WRITE: "Save, edit and forget facts; report exchanges for learning",
}
ACCESS_LIFETIME = timedelta(hours=1)
REFRESH_LIFETIME = timedelta(days=30)
CODE_LIFETIME = timedelta(minutes=2)
ACCESS_START = "mco_"
REFRESH_START = "mcr_"
CLIENT_START = "mcc_"
_LOOPBACK_NAMES = {"localhost"}
_MAX_URIS = 10


@dataclass(frozen=True, slots=True)
class ClientInfo:
    """A registered client, as the registration response and the consent page show it."""

    client_id: str
    name: str
    redirect_uris: tuple[str, ...]
    issued_at: int

    def registration(self) -> dict:
        """The RFC 7591 §3.2.1 response body."""
        return {
            "client_id": self.client_id,
            "client_id_issued_at": self.issued_at,
            "client_name": self.name or None,
            "redirect_uris": list(self.redirect_uris),
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }


@dataclass(frozen=True, slots=True)
class AuthRequest:
    """A checked authorization request (RFC 6749 §4.1.1 with PKCE and RFC 8707's resource)."""

    client: ClientInfo
    redirect_uri: str
    state: str
    challenge: str
    scopes: tuple[str, ...]
    resource: str

    def fields(self) -> dict[str, str]:
        """The request again, as the consent form carries it to its POST."""
        return {
            "response_type": "code",
            "client_id": self.client.client_id,
            "redirect_uri": self.redirect_uri,
            "state": self.state,
            "code_challenge": self.challenge,
            "code_challenge_method": "S256",
            "scope": " ".join(self.scopes),
            "resource": self.resource,
        }

    def answer(self, **params: str) -> str:
        """The redirect URI with `params` (and the state) added to its query."""
        query = urlencode({**params, **({"state": self.state} if self.state else {})})
        return f"{self.redirect_uri}{'&' if '?' in self.redirect_uri else '?'}{query}"


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
    """Who an access token speaks for: the bot, its joined projects, the granted scopes and
    the room the connection is bound to (None: each call names its room)."""

    bot: str
    joined: frozenset[str]
    scopes: frozenset[str]
    binding: Binding | None


def client_register(*, metadata: Mapping) -> ClientInfo:
    """Register a public client from its RFC 7591 metadata (OAuthRefused with
    invalid_redirect_uri or invalid_client_metadata, saying what was wrong)."""
    uris = metadata.get("redirect_uris")
    if not isinstance(uris, list) or not uris or len(uris) > _MAX_URIS:
        raise _metadata_error(
            "invalid_redirect_uri", f"redirect_uris must be a list of 1 to {_MAX_URIS} URIs."
        )
    for uri in uris:
        redirect_uri_check(uri)
    grants = metadata.get("grant_types") or ["authorization_code"]
    if not isinstance(grants, list) or not set(grants) <= {"authorization_code", "refresh_token"}:
        raise _metadata_error(
            "invalid_client_metadata",
            "grant_types may hold only authorization_code and refresh_token.",
        )
    responses = metadata.get("response_types") or ["code"]
    if responses != ["code"]:
        raise _metadata_error("invalid_client_metadata", 'response_types must be ["code"].')
    name = metadata.get("client_name") or ""
    if not isinstance(name, str):
        raise _metadata_error("invalid_client_metadata", "client_name must be a string.")
    kept = {k: v for k, v in metadata.items() if isinstance(k, str) and len(str(v)) < 2000}
    row = OAuthClient.objects.create(
        client_id=CLIENT_START + secrets.token_urlsafe(24),
        name=" ".join(name.split())[:120],
        redirect_uris=list(uris),
        metadata=kept,
    )
    return _client(row)


def client_get(*, client_id: str) -> ClientInfo:
    """A registered client (OAuthRefused, shown to the person, if there is none such)."""
    row = OAuthClient.objects.filter(client_id=client_id).first() if client_id else None
    if row is None:
        raise OAuthRefused(
            "invalid_client",
            f"No MCP client is registered with client_id {client_id[:80]!r}. Remove the "
            "connection in your MCP client and add it again: it registers itself afresh.",
            redirect=False,
            status=401,
        )
    return _client(row)


def redirect_uri_check(uri: object) -> str:
    """`uri` if it may be a redirect URI: https, or http on a loopback address; no fragment."""
    if not isinstance(uri, str) or len(uri) > 2000:
        raise _metadata_error("invalid_redirect_uri", "A redirect URI must be a string URL.")
    parts = urlsplit(uri)
    if parts.fragment or "#" in uri:
        raise _metadata_error(
            "invalid_redirect_uri", f"Redirect URI {uri!r} must not have a #fragment."
        )
    if not parts.hostname:
        raise _metadata_error("invalid_redirect_uri", f"Redirect URI {uri!r} names no host.")
    if parts.scheme == "https" or (parts.scheme == "http" and _loopback(parts.hostname)):
        return uri
    raise _metadata_error(
        "invalid_redirect_uri",
        f"Redirect URI {uri!r} must be https, or http on a loopback address "
        "(127.0.0.1, [::1] or localhost).",
    )


def authorization_request(*, params: Mapping[str, str], resource: str) -> AuthRequest:
    """Check an authorization request for this server's MCP endpoint `resource`.

    An unknown client or an unregistered redirect URI raises OAuthRefused with redirect=False
    (the person sees it; nobody is redirected). Anything else wrong raises OAuthRefused to be
    sent back to the client's redirect URI; `.detail["redirect_to"]` carries that address."""
    client = client_get(client_id=params.get("client_id", ""))
    redirect_uri = params.get("redirect_uri", "")
    if not redirect_uri and len(client.redirect_uris) == 1:
        redirect_uri = client.redirect_uris[0]
    if not _registered(redirect_uri, client.redirect_uris):
        raise OAuthRefused(
            "invalid_request",
            f"The redirect URI {redirect_uri[:200]!r} is not one this client registered, so "
            "nothing is sent there. Registered: " + ", ".join(client.redirect_uris) + ".",
            redirect=False,
        )
    state = params.get("state", "")

    def refused(error: str, message: str) -> OAuthRefused:
        return _redirected(
            AuthRequest(client, redirect_uri, state, "", (), resource), error, message
        )

    if params.get("response_type") != "code":
        raise refused("unsupported_response_type", "response_type must be code.")
    challenge = params.get("code_challenge", "")
    if params.get("code_challenge_method") != "S256":
        raise refused("invalid_request", "code_challenge_method must be S256 (PKCE).")
    if not 43 <= len(challenge) <= 128:
        raise refused("invalid_request", "code_challenge (43 to 128 characters) is required.")
    asked = tuple(params.get("scope", "").split()) or tuple(SCOPES)
    unknown = [s for s in asked if s not in SCOPES]
    if unknown:
        raise refused(
            "invalid_scope",
            f"Unknown scope {unknown[0]!r}; this server grants {', '.join(SCOPES)}.",
        )
    target = params.get("resource", "") or resource
    if target.rstrip("/") != resource.rstrip("/"):
        raise refused("invalid_target", f"resource must be {resource}.")
    return AuthRequest(client, redirect_uri, state, challenge, _ordered(asked), resource)


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
            scopes=list(_ordered(scopes)),
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
    A code presented twice also revokes everything issued with it (RFC 6749 §4.1.2)."""
    _client_known(client_id)
    now = timezone.now()
    with transaction.atomic():  # no raising inside: a refusal's revocations must be kept
        row = (
            OAuthCode.objects.select_for_update()
            .select_related("grant__client")
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
        pair = _issue(row.grant, now) if problem is None else None
    if pair is None:
        raise problem
    return pair


def _code_problem(row, client_id, redirect_uri, verifier, resource, now) -> OAuthRefused | None:
    if row is None or row.grant.client.client_id != client_id:
        return _grant_error("The authorization code is unknown or belongs to another client.")
    if row.used_at is not None:
        return _grant_error(
            "The authorization code was already used; the connection it made is revoked."
        )
    if row.expires_at <= now:
        return _grant_error("The authorization code expired; sign in again.")
    if redirect_uri != row.redirect_uri:
        return _grant_error("redirect_uri differs from the one the code was issued for.")
    if not _pkce_matches(verifier, row.challenge):
        return _grant_error("The PKCE code_verifier does not match the code_challenge.")
    if row.grant.revoked_at is not None:
        return _grant_error("The connection was revoked.")
    return _resource_problem(resource, row.grant)


def token_refresh(*, client_id: str, refresh_token: str, resource: str) -> TokenPair:
    """A new access token and a new refresh token for a live refresh token, which is spent.
    A spent refresh token presented again revokes the whole connection (OAuth 2.1 §4.3.1)."""
    _client_known(client_id)
    now = timezone.now()
    with transaction.atomic():  # no raising inside: a refusal's revocations must be kept
        row = (
            OAuthToken.objects.select_for_update()
            .select_related("grant__client")
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
    return _resource_problem(resource, row.grant)


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
    row = (
        OAuthToken.objects.select_related("grant__bot")
        .filter(
            digest=_digest(token),
            kind=OAuthToken.ACCESS,
            revoked_at__isnull=True,
            grant__revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        )
        .first()
    )
    if row is None or row.grant.resource.rstrip("/") != resource.rstrip("/"):
        return None
    grant = row.grant
    joined = ProjectMember.objects.filter(bot_id=grant.bot_id).values_list("project", flat=True)
    binding = (
        Binding(room_id=grant.room_id, room_kind=grant.room_kind, person=grant.person or None)
        if grant.room_id
        else None
    )
    return OAuthCaller(
        bot=grant.bot.slug,
        joined=frozenset(joined),
        scopes=frozenset(grant.scopes),
        binding=binding,
    )


def _issue(grant: OAuthGrant, now) -> TokenPair:
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


def _registered(uri: str, registered: tuple[str, ...]) -> bool:
    """Exact match, except that a loopback redirect URI may use any port (RFC 8252 §7.3)."""
    if uri in registered:
        return True
    parts = urlsplit(uri)
    if parts.scheme != "http" or not parts.hostname or not _loopback(parts.hostname):
        return False
    for known in registered:
        other = urlsplit(known)
        if (other.scheme, other.hostname, other.path, other.query) == (
            parts.scheme,
            parts.hostname,
            parts.path,
            parts.query,
        ):
            return True
    return False


def _loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def _ordered(scopes) -> tuple[str, ...]:
    return tuple(s for s in SCOPES if s in set(scopes))


def _redirected(request: AuthRequest, error: str, message: str) -> OAuthRefused:
    refused = OAuthRefused(error, message)
    refused.detail = {"redirect_to": request.answer(error=error, error_description=message)}
    return refused


def _grant_error(message: str) -> OAuthRefused:
    return OAuthRefused("invalid_grant", message)


def _metadata_error(error: str, message: str) -> OAuthRefused:
    return OAuthRefused(error, message, redirect=False)


def _client(row: OAuthClient) -> ClientInfo:
    return ClientInfo(
        client_id=row.client_id,
        name=row.name,
        redirect_uris=tuple(row.redirect_uris),
        issued_at=int(row.created_at.timestamp()),
    )


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()
