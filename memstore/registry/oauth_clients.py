"""OAuth clients and what they may ask: registration (RFC 7591), the redirect URI rules, the
scopes, and checking an authorization request (RFC 6749 §4.1.1 with PKCE S256 and RFC 8707's
resource) before the consent page shows it.

A client is public (no secret: desktop and web MCP clients cannot keep one) and may send people
back only to the redirect URIs it registered, each https or a loopback address (whose port may
change between runs, RFC 8252 §7.3), read as a browser reads them
(`memstore.registry.redirect_uris`). Registration is open, so what a registration keeps is
small (the RFC 7591 fields a person is shown, capped) and a registration nobody signed in with
goes after a day; how often one address may register is the front door's rate limit.

Does not: issue codes or tokens (`memstore.registry.oauth`), or decide who may consent.
"""

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

from django.utils import timezone

from memstore.errors import OAuthRefused
from memstore.models import OAuthClient
from memstore.registry.redirect_uris import redirect_uri_parse, redirect_uri_registered
from memstore.vocabulary import READ_GRANT, WRITE_GRANT

READ = READ_GRANT
WRITE = WRITE_GRANT
SCOPES = {
    READ: "Search and read memory, and the prompt's memory section",
    WRITE: "Save, edit and forget facts; report exchanges for learning",
}
UNUSED_CLIENT_LIFETIME = timedelta(days=1)
IGNORED_SCOPES = frozenset({"offline_access", "openid", "profile", "email"})
CLIENT_START = "mcc_"
_MAX_URIS = 10
_MAX_URI_CHARS = 4000
# The RFC 7591 metadata kept for people to see (anything else a client sends is dropped), each
# value at most _KEPT_CHARS long as JSON.
_KEPT_FIELDS = (
    "client_name",
    "client_uri",
    "logo_uri",
    "software_id",
    "software_version",
    "grant_types",
    "response_types",
    "token_endpoint_auth_method",
    "scope",
)
_KEPT_CHARS = 300


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
    hrefs = list(dict.fromkeys(redirect_uri_check(uri) for uri in uris))
    if sum(len(href) for href in hrefs) > _MAX_URI_CHARS:
        raise _metadata_error(
            "invalid_redirect_uri",
            f"redirect_uris may hold at most {_MAX_URI_CHARS} characters in all.",
        )
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
    kept = {k: metadata[k] for k in _KEPT_FIELDS if k in metadata}
    kept = {k: v for k, v in kept.items() if len(json.dumps(v)) <= _KEPT_CHARS}
    clients_unused_drop()
    row = OAuthClient.objects.create(
        client_id=CLIENT_START + secrets.token_urlsafe(24),
        name=" ".join(name.split())[:120],
        redirect_uris=hrefs,
        metadata=kept,
    )
    return _client(row)


def clients_unused_drop() -> int:
    """Drop registrations nobody signed in with for a day (registration is open, RFC 7591
    without an initial access token, so they would otherwise pile up); how many went."""
    deleted, _ = OAuthClient.objects.filter(
        created_at__lt=timezone.now() - UNUSED_CLIENT_LIFETIME, grants__isnull=True
    ).delete()
    return deleted


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
    """`uri` as a browser serializes it, if it may be a redirect URI (https, or http on a
    loopback address; no fragment, no user name); OAuthRefused naming what is wrong if not."""
    return redirect_uri_parse(uri).href


def authorization_request(*, params: Mapping[str, str], resource: str) -> AuthRequest:
    """Check an authorization request for this server's MCP endpoint `resource`.

    An unknown client or an unregistered redirect URI raises OAuthRefused with redirect=False
    (the person sees it; nobody is redirected). Anything else wrong raises OAuthRefused to be
    sent back to the client's redirect URI; `.detail["redirect_to"]` carries that address."""
    client = client_get(client_id=params.get("client_id", ""))
    sent = params.get("redirect_uri", "")
    if not sent and len(client.redirect_uris) == 1:
        sent = client.redirect_uris[0]
    parsed = redirect_uri_registered(sent, client.redirect_uris)
    if parsed is None:
        raise OAuthRefused(
            "invalid_request",
            f"The redirect URI {sent[:200]!r} is not one this client registered, so "
            "nothing is sent there. Registered: " + ", ".join(client.redirect_uris) + ".",
            redirect=False,
        )
    redirect_uri = parsed.href  # where a browser would go: the code goes there, nowhere else
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
