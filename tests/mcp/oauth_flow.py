"""Playing the person's side of an OAuth sign-in over real HTTP: log in to the console, open the
consent page a client sent them to, and press Allow (or Deny) with the choices a person makes."""

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import httpx2

PASSWORD = "pw-oauth-1234"
REDIRECT = "http://127.0.0.1:8765/callback"


def logged_in(base: str, username: str) -> httpx2.Client:
    """An HTTP client with a console session for `username` (password PASSWORD)."""
    http = httpx2.Client(base_url=base, follow_redirects=False)
    page = http.get("/login/")
    response = http.post(
        "/login/",
        data={"csrfmiddlewaretoken": _csrf(page.text), "username": username, "password": PASSWORD},
    )
    assert response.status_code == 302, response.text[:500]
    return http


def consent(http: httpx2.Client, authorize_url: str, **choices) -> httpx2.Response:
    """Open the consent page and submit it as the page stands (its hidden fields, the ticked
    scopes, "as me"), changed by `choices` (bot, scopes, bind, room_id, decision)."""
    page = http.get(authorize_url)
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
