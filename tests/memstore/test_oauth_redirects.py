"""Which redirect URIs a client may register, as a person would check them: https anywhere, http
only on a loopback address, never a fragment; every refusal names the URI. Hypothesis for the
parser's edges (hosts, ports, paths, schemes)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.errors import OAuthRefused
from memstore.registry.oauth_clients import redirect_uri_check

HOSTS = st.sampled_from(["example.com", "claude.ai", "chatgpt.com", "10.0.0.5", "[2001:db8::1]"])
LOOPBACK = st.sampled_from(["127.0.0.1", "127.8.9.10", "localhost", "LOCALHOST", "[::1]"])
PORTS = st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}"))
PATHS = st.lists(st.text("abcxyz019-_.~", min_size=1, max_size=8), max_size=3).map(
    lambda parts: "/" + "/".join(parts)
)


@given(host=st.one_of(HOSTS, LOOPBACK), port=PORTS, path=PATHS)
def test_https_is_accepted_anywhere(host, port, path):
    uri = f"https://{host}{port}{path}"
    assert redirect_uri_check(uri) == uri


@given(host=LOOPBACK, port=PORTS, path=PATHS)
def test_http_is_accepted_on_loopback(host, port, path):
    uri = f"http://{host}{port}{path}"
    assert redirect_uri_check(uri) == uri


@given(host=HOSTS, port=PORTS, path=PATHS)
def test_http_elsewhere_is_refused_naming_the_uri(host, port, path):
    uri = f"http://{host}{port}{path}"
    with pytest.raises(OAuthRefused) as refused:
        redirect_uri_check(uri)
    assert refused.value.error == "invalid_redirect_uri"
    assert repr(uri) in refused.value.message
    assert refused.value.redirect is False


@given(
    scheme=st.sampled_from(["cursor", "javascript", "ftp", "file", "data", "vscode"]),
    rest=st.text("abc:/.-", max_size=20),
)
def test_other_schemes_are_refused(scheme, rest):
    with pytest.raises(OAuthRefused):
        redirect_uri_check(f"{scheme}://x{rest}")


@pytest.mark.parametrize(
    "uri, why",
    [
        ("https://app.example/cb#done", "#fragment"),
        ("https:///cb", "names no host"),
        ("http://127.0.0.1.evil.example/cb", "must be https"),
        ("http://localhost.evil.example/cb", "must be https"),
        (42, "must be a string"),
        ("https://x.example/" + "a" * 2000, "must be a string"),
    ],
)
def test_refusals_say_what_is_wrong(uri, why):
    with pytest.raises(OAuthRefused) as refused:
        redirect_uri_check(uri)
    assert why in refused.value.message
