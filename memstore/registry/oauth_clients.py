"""OAuth clients and what they may ask: registration (RFC 7591), the redirect URI rules, the
scopes, and checking an authorization request (RFC 6749 §4.1.1 with PKCE S256 and RFC 8707's
resource) before the consent page shows it.

A client is public (no secret: desktop and web MCP clients cannot keep one) and may send people
back only to the redirect URIs it registered, each https or a loopback address (whose port may
change between runs, RFC 8252 §7.3).

Does not: issue codes or tokens (`memstore.registry.oauth`), or decide who may consent.
"""

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from ipaddress import ip_address
from urllib.parse import urlencode, urlsplit

from django.utils import timezone

from memstore.errors import OAuthRefused
from memstore.models import OAuthClient

READ = "memory:read"
WRITE = "memory:write"
SCOPES = {
    READ: "Search and read memory, and the prompt's memory section",
    WRITE: "Save, edit and forget facts; report exchanges for learning",
}
UNUSED_CLIENT_LIFETIME = timedelta(days=7)
IGNORED_SCOPES = frozenset({"offline_access", "openid", "profile", "email"})
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
    # Registration is open (RFC 7591 without an initial access token), so registrations nobody
    # ever signed in with go after a week instead of piling up.
    OAuthClient.objects.filter(
        created_at__lt=timezone.now() - UNUSED_CLIENT_LIFETIME, grants__isnull=True
    ).delete()
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
    # Generic sign-in scopes some clients always send are ignored (RFC 6749 §3.3 lets a server
    # grant less): refresh tokens come anyway, and there is no OpenID identity here.
    sent = [s for s in params.get("scope", "").split() if s not in IGNORED_SCOPES]
    asked = tuple(sent) or tuple(SCOPES)
    unknown = [s for s in asked if s not in SCOPES]
    if unknown:
        raise refused(
            "invalid_scope",
            f"Unknown scope {unknown[0]!r}; this server grants {', '.join(SCOPES)}.",
        )
    target = params.get("resource", "") or resource
    if target.rstrip("/") != resource.rstrip("/"):
        raise refused("invalid_target", f"resource must be {resource}.")
    return AuthRequest(client, redirect_uri, state, challenge, scopes_ordered(asked), resource)


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


def scopes_ordered(scopes) -> tuple[str, ...]:
    return tuple(s for s in SCOPES if s in set(scopes))


def _redirected(request: AuthRequest, error: str, message: str) -> OAuthRefused:
    refused = OAuthRefused(error, message)
    refused.detail = {"redirect_to": request.answer(error=error, error_description=message)}
    return refused


def _metadata_error(error: str, message: str) -> OAuthRefused:
    return OAuthRefused(error, message, redirect=False)


def _client(row: OAuthClient) -> ClientInfo:
    return ClientInfo(
        client_id=row.client_id,
        name=row.name,
        redirect_uris=tuple(row.redirect_uris),
        issued_at=int(row.created_at.timestamp()),
    )
