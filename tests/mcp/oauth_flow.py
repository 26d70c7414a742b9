"""Playing both sides of an OAuth sign-in over real HTTP: the client's (register, PKCE, the
token endpoint, calls to /mcp: `Flow`) and the person's (log in to the console, open the consent
page a client sent them to, and press Allow or Deny with the choices a person makes)."""

import base64
import hashlib
import json
import re
import secrets
from html import unescape
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2

PASSWORD = "pw-oauth-1234"
REDIRECT = "http://127.0.0.1:8765/callback"
# Generous: the live server's first request imports the URLconf (seconds on a busy machine).
TIMEOUT = 60


def logged_in(base: str, username: str) -> httpx2.Client:
    """An HTTP client with a console session for `username` (password PASSWORD)."""
    http = httpx2.Client(base_url=base, follow_redirects=False, timeout=TIMEOUT)
    page = http.get("/login/")
    response = http.post(
        "/login/",
        data={"csrfmiddlewaretoken": _csrf(page.text), "username": username, "password": PASSWORD},
    )
    assert response.status_code == 302, response.text[:500]
    return http


def consent(http: httpx2.Client, url: str, **choices) -> httpx2.Response:
    """Open the consent page and submit it as the page stands (its hidden fields, the ticked
    scopes, "as me"), changed by `choices` (bot, scopes, bind, room_id, decision)."""
    page = http.get(url)
    assert page.status_code == 200, page.text[:800]
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
    form = {name: unescape(value) for name, value in form.items()}
    ticked = re.findall(r'<input type="checkbox" name="scopes" value="([^"]+)" checked>', page.text)
    form.update({"decision": "allow", "bind": "me", "scopes": ticked, **choices})
    return http.post("/oauth/authorize", data=form)


def code_of(response: httpx2.Response) -> dict[str, str]:
    """The query the consent step sent the browser back to the client with."""
    assert response.status_code == 302, response.text[:800]
    return {k: v[0] for k, v in parse_qs(urlsplit(response.headers["location"]).query).items()}


def _csrf(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ACCEPT = "application/json, text/event-stream"


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def register(base: str, **metadata) -> httpx2.Response:
    body = {"client_name": "Test client", "redirect_uris": [REDIRECT], **metadata}
    return httpx2.post(base + "/oauth/register", json=body, timeout=TIMEOUT)


def authorize_url(base: str, client_id: str, challenge: str, **extra) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "state": "st-1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": base + "/mcp",
        **extra,
    }
    return f"{base}/oauth/authorize?{urlencode(params)}"


class Flow:
    """One client, signed in as ann: helpers to get codes and tokens."""

    def __init__(self, base: str, user: str = "ann"):
        self.base = base
        self.client_id = register(base).json()["client_id"]
        self.person = logged_in(base, user)

    def code(self, **choices) -> tuple[str, str]:
        verifier, challenge = pkce()
        answer = code_of(
            consent(self.person, authorize_url(self.base, self.client_id, challenge), **choices)
        )
        assert answer["state"] == "st-1"
        return answer["code"], verifier

    def exchange(self, code: str, verifier: str, redirect_uri: str = REDIRECT) -> httpx2.Response:
        return httpx2.post(
            self.base + "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": verifier,
                "redirect_uri": redirect_uri,
                "client_id": self.client_id,
                "resource": self.base + "/mcp",
            },
            timeout=TIMEOUT,
        )

    def tokens(self, **choices) -> dict:
        response = self.exchange(*self.code(bot="ava", **choices))
        assert response.status_code == 200, response.text
        return response.json()

    def refresh(self, refresh_token: str) -> httpx2.Response:
        return httpx2.post(
            self.base + "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": refresh_token,
                "client_id": self.client_id,
            },
            timeout=TIMEOUT,
        )

    def mcp(self, access_token: str, message: dict = LIST) -> httpx2.Response:
        return httpx2.post(
            self.base + "/mcp",
            content=json.dumps(message),
            headers={
                "Authorization": f"Bearer {access_token}",
                "Content-Type": "application/json",
                "Accept": ACCEPT,
            },
            timeout=TIMEOUT,
        )


def console_post(http: httpx2.Client, path: str, data: dict) -> httpx2.Response:
    """Submit a console form at `path` as a signed-in person would (its CSRF token first)."""
    token = _csrf(http.get(path).text)
    return http.post(path, data={**data, "csrfmiddlewaretoken": token})


def tool_call(name: str, arguments: dict) -> dict:
    """A JSON-RPC tools/call message."""
    return {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
