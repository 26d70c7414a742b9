"""Redirect URIs read the way a browser reads them: the WHATWG URL standard (through `ada_url`,
the parser Node.js uses), so the address this server checks is the address a browser sends the
person, and their authorization code, to.

A browser treats a backslash as a slash in http(s) URLs, drops tabs and newlines anywhere,
decodes a percent-encoded host, and reads IPv4 shorthand (`127.1`, `0x7f.1`, `2130706433`) as
a full address. A check that read the text any other way could be told "loopback" about a URL
that a browser opens elsewhere (`http://evil.example\\@127.0.0.1/`). So every rule here is
applied to the parsed URL, and what is stored, compared and redirected to is its serialization
(the canonical `href`), never the text the client sent.

The rules: https anywhere, or http on a loopback address (127.0.0.0/8, ::1, `localhost`); no
fragment; no user name or password (an `@` in the authority only ever serves to mislead a
reader about the host). A loopback redirect URI matches a registered one on any port
(RFC 8252 §7.3).

Does not: register clients or check authorization requests (`memstore.registry.oauth_clients`).
"""

from dataclasses import dataclass
from ipaddress import IPv6Address, ip_address

from ada_url import URL, HostType

from memstore.errors import OAuthRefused

MAX_LENGTH = 2000
_LOOPBACK_NAMES = {"localhost"}


@dataclass(frozen=True, slots=True)
class RedirectURI:
    """A redirect URI as a browser parses it; `href` is what is stored and redirected to."""

    href: str
    scheme: str
    host: str
    port: str
    path: str
    query: str
    loopback: bool

    def same_but_port(self, other: "RedirectURI") -> bool:
        """Equal apart from the port (what RFC 8252 allows a loopback redirect URI)."""
        return (self.scheme, self.host, self.path, self.query) == (
            other.scheme,
            other.host,
            other.path,
            other.query,
        )


def redirect_uri_parse(uri: object) -> RedirectURI:
    """`uri` parsed as a browser does and checked (OAuthRefused invalid_redirect_uri, naming
    the URI and what is wrong, when it may not be a redirect URI)."""
    if not isinstance(uri, str) or len(uri) > MAX_LENGTH:
        raise _refused("A redirect URI must be a string URL.")
    if "#" in uri:
        raise _refused(f"Redirect URI {uri!r} must not have a #fragment.")
    try:
        url = URL(uri)
    except ValueError:
        raise _refused(f"Redirect URI {uri!r} is not a URL a browser could open.") from None
    scheme = url.protocol.rstrip(":")
    if scheme in {"http", "https"} and not url.hostname:
        raise _refused(f"Redirect URI {uri!r} names no host.")
    if url.username or url.password:
        raise _refused(
            f"Redirect URI {uri!r} must not carry a user name or password before its host."
        )
    loopback = scheme in {"http", "https"} and _loopback(url.hostname, url.host_type)
    if scheme != "https" and not (scheme == "http" and loopback):
        raise _refused(
            f"Redirect URI {uri!r} must be https, or http on a loopback address "
            f"(127.0.0.1, [::1] or localhost); a browser reads it as {url.href!r}."
        )
    return RedirectURI(
        href=url.href,
        scheme=scheme,
        host=url.hostname,
        port=url.port,
        path=url.pathname,
        query=url.search,
        loopback=loopback,
    )


def redirect_uri_canonical(uri: str) -> str | None:
    """The browser's serialization of `uri`, or None if it may not be a redirect URI."""
    try:
        return redirect_uri_parse(uri).href
    except OAuthRefused:
        return None


def redirect_uri_registered(uri: str, registered: tuple[str, ...]) -> RedirectURI | None:
    """`uri` parsed, if it is one of the `registered` redirect URIs as a browser reads both:
    the same URL, or for loopback http the same URL on another port. None otherwise."""
    try:
        sent = redirect_uri_parse(uri)
    except OAuthRefused:
        return None
    for known in registered:
        other = _parsed_or_none(known)
        if other is None:
            continue
        if other.href == sent.href or (
            sent.loopback and sent.scheme == "http" and sent.same_but_port(other)
        ):
            return sent
    return None


def _parsed_or_none(uri: str) -> RedirectURI | None:
    try:
        return redirect_uri_parse(uri)
    except OAuthRefused:
        return None


def _loopback(host: str, host_type: HostType) -> bool:
    if host_type == HostType.DEFAULT:
        return host in _LOOPBACK_NAMES
    try:
        address = ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _refused(message: str) -> OAuthRefused:
    return OAuthRefused("invalid_redirect_uri", message, redirect=False)
