"""Which redirect URIs a client may register, read as a browser reads them (the WHATWG URL
standard): https anywhere, http only on a loopback address, never a fragment or a user name;
every refusal names the URI. Hypothesis for the parser's edges: hosts, ports, paths, schemes,
and the ways one URL can be written so that a naive reading and a browser's disagree (tabs and
newlines, backslashes, percent-encoded hosts, IPv4 shorthand, user info)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.errors import OAuthRefused
from memstore.registry.oauth_clients import redirect_uri_check
from memstore.registry.redirect_uris import redirect_uri_registered

HOSTS = st.sampled_from(["example.com", "claude.ai", "chatgpt.com", "10.0.0.5", "[2001:db8::1]"])
LOOPBACK = st.sampled_from(["127.0.0.1", "127.8.9.10", "localhost", "LOCALHOST", "[::1]"])
PORTS = st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}"))
PATHS = st.lists(st.text("abcxyz019-_.~", min_size=1, max_size=8), max_size=3).map(
    lambda parts: "/" + "/".join(parts)
)


def _browser_form(scheme: str, host: str, port: str, path: str) -> str:
    """What a browser shows for this URL: lower-case host, no default port, no dot segments."""
    default = {"http": ":80", "https": ":443"}[scheme]
    parts = path.split("/")[1:]
    segments: list[str] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part in {".", ".."}:
            if part == ".." and segments:
                segments.pop()
            if last:
                segments.append("")
        else:
            segments.append(part)
    return f"{scheme}://{host.lower()}{'' if port == default else port}/{'/'.join(segments)}"


def _refused(uri) -> OAuthRefused:
    with pytest.raises(OAuthRefused) as refused:
        redirect_uri_check(uri)
    assert refused.value.error == "invalid_redirect_uri"
    assert refused.value.redirect is False
    return refused.value


@given(host=st.one_of(HOSTS, LOOPBACK), port=PORTS, path=PATHS)
def test_https_is_accepted_anywhere_as_the_browser_writes_it(host, port, path):
    uri = f"https://{host}{port}{path}"
    assert redirect_uri_check(uri) == _browser_form("https", host, port, path)


@given(host=LOOPBACK, port=PORTS, path=PATHS)
def test_http_is_accepted_on_loopback(host, port, path):
    uri = f"http://{host}{port}{path}"
    assert redirect_uri_check(uri) == _browser_form("http", host, port, path)


@given(host=HOSTS, port=PORTS, path=PATHS)
def test_http_elsewhere_is_refused_naming_the_uri(host, port, path):
    uri = f"http://{host}{port}{path}"
    assert repr(uri) in _refused(uri).message


@given(
    scheme=st.sampled_from(["cursor", "javascript", "ftp", "file", "data", "vscode"]),
    rest=st.text("abc:/.-", max_size=20),
)
def test_other_schemes_are_refused(scheme, rest):
    _refused(f"{scheme}://x{rest}")


@st.composite
def _with_tabs_and_newlines(draw, uri: str) -> str:
    chars = list(uri)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(chars)))
        chars.insert(at, draw(st.sampled_from(["\t", "\n", "\r"])))
    return "".join(chars)


@given(data=st.data(), host=st.one_of(HOSTS, LOOPBACK), path=PATHS)
def test_tabs_and_newlines_anywhere_change_nothing(data, host, path):
    """A browser drops them wherever they are, so the check does too: the same URL, judged
    the same (an http URL on another host stays refused however it is split)."""
    for scheme in ("https", "http"):
        uri = f"{scheme}://{host}{path}"
        split = data.draw(_with_tabs_and_newlines(uri))
        try:
            expected = redirect_uri_check(uri)
        except OAuthRefused:
            _refused(split)
        else:
            assert redirect_uri_check(split) == expected


@given(data=st.data(), host=st.one_of(HOSTS, LOOPBACK), path=PATHS)
def test_a_backslash_is_a_slash(data, host, path):
    uri = f"https://{host}{path}"
    slashes = [i for i, c in enumerate(uri) if c == "/"]
    chosen = data.draw(st.sets(st.sampled_from(slashes), min_size=1))
    bent = "".join("\\" if i in chosen else c for i, c in enumerate(uri))
    assert redirect_uri_check(bent) == redirect_uri_check(uri)


@given(
    evil=st.sampled_from(["evil.example", "10.0.0.5", "attacker.test"]),
    loop=LOOPBACK,
    path=PATHS,
)
def test_a_loopback_address_after_a_backslash_or_at_sign_is_not_the_host(evil, loop, path):
    """`http://evil\\@127.0.0.1/` is read by a browser as host evil (the backslash ends the
    host); `http://127.0.0.1@evil/` as host evil with a user name. Both refused."""
    for uri in (f"http://{evil}\\@{loop}{path}", f"http://{loop}@{evil}{path}"):
        _refused(uri)
    assert "user name" in _refused(f"https://{loop}@{evil}{path}").message


def _ipv4_spelling(address: int, parts: int, radixes: list[str]) -> str:
    """`address` in WHATWG IPv4 notation with 1 to 4 parts, the last part taking the rest."""
    bytes_ = [(address >> shift) & 0xFF for shift in (24, 16, 8, 0)]
    numbers = bytes_[: parts - 1] + [address & ((1 << (8 * (5 - parts))) - 1)]

    def spelled(number: int, radix: str) -> str:
        return {"dec": str(number), "hex": hex(number), "oct": "0" + oct(number)[2:]}[radix]

    return ".".join(spelled(n, r) for n, r in zip(numbers, radixes, strict=False))


@given(
    address=st.one_of(st.integers(0x7F000000, 0x7FFFFFFF), st.integers(0x01000000, 0xDFFFFFFF)),
    parts=st.integers(1, 4),
    radixes=st.lists(st.sampled_from(["dec", "hex", "oct"]), min_size=4, max_size=4),
)
def test_ipv4_in_any_notation_is_judged_by_the_address_it_means(address, parts, radixes):
    """127.1, 0x7f.1, 017700000001, 2130706433: a browser opens 127.0.0.1 for each, so http
    is allowed exactly when the address meant is a loopback one, and it is kept dotted."""
    spelled = _ipv4_spelling(address, parts, radixes)
    dotted = ".".join(str((address >> s) & 0xFF) for s in (24, 16, 8, 0))
    uri = f"http://{spelled}/cb"
    if address >> 24 == 127:
        assert redirect_uri_check(uri) == f"http://{dotted}/cb"
    else:
        _refused(uri)
    assert redirect_uri_check(f"https://{spelled}/cb") == f"https://{dotted}/cb"


@given(
    host=st.one_of(HOSTS.filter(lambda h: "[" not in h), LOOPBACK.filter(lambda h: "[" not in h))
)
def test_a_percent_encoded_host_is_the_host_it_spells(host):
    encoded = "".join(f"%{ord(c):02X}" if c.isalnum() else c for c in host)
    for scheme in ("https", "http"):
        try:
            expected = redirect_uri_check(f"{scheme}://{host}/cb")
        except OAuthRefused:
            _refused(f"{scheme}://{encoded}/cb")
        else:
            assert redirect_uri_check(f"{scheme}://{encoded}/cb") == expected


def test_a_loopback_uri_matches_its_registration_on_any_port_however_written():
    registered = (redirect_uri_check("http://127.0.0.1:8765/callback"),)
    for sent in (
        "http://127.1:9999/callback",
        "http://0x7f.0.0.1/callback",
        "http:\\\\127.0.0.1:1\\callback",
    ):
        assert redirect_uri_registered(sent, registered) is not None
    for sent in (
        "http://127.0.0.1:8765/other",
        "https://127.0.0.1:8765/callback",
        "http://evil.example\\@127.0.0.1:8765/callback",
    ):
        assert redirect_uri_registered(sent, registered) is None


@pytest.mark.parametrize(
    "uri, why",
    [
        ("https://app.example/cb#done", "#fragment"),
        ("http://", "not a URL a browser could open"),
        ("https://exa mple.com/cb", "not a URL a browser could open"),
        ("http://127.0.0.1.evil.example/cb", "must be https"),
        ("http://localhost.evil.example/cb", "must be https"),
        (
            "http://evil.example\\@127.0.0.1/cb",
            "a browser reads it as 'http://evil.example/@127.0.0.1/cb'",
        ),
        ("http://user:pw@127.0.0.1/cb", "user name or password"),
        (42, "must be a string"),
        ("https://x.example/" + "a" * 2000, "must be a string"),
    ],
)
def test_refusals_say_what_is_wrong(uri, why):
    assert why in _refused(uri).message
