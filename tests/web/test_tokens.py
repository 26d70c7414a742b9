"""Bot tokens in the console (staff only: create, shown once, list with last use, revoke) and
the connect page with its filled-in snippets."""

import re

import pytest

from memstore.registry.tokens import token_verify
from tests.helpers import HX

pytestmark = pytest.mark.django_db
BOTH = ["memory:read", "memory:write"]  # the form's two boxes, ticked as it opens


def test_staff_create_a_token_shown_once_that_works(boss, workspace):
    response = boss.post("/bots/ava/tokens/", {"name": "laptop", "scopes": BOTH})
    html = response.content.decode()
    token = re.search(r'<pre id="new-token"><code>(mct_[^<]+)</code>', html).group(1)
    assert response["Cache-Control"] == "no-store" and 'data-copy="new-token"' in html
    assert f"TOKEN = &quot;{token}&quot;" in html  # the snippets are filled in
    listing = boss.get("/bots/ava/tokens/").content.decode()
    assert token not in listing and token[:12] in listing
    assert "laptop" in listing and "never" in listing
    assert token_verify(token=token).bot == "ava"


def test_last_use_is_listed(boss, workspace):
    html = boss.post("/bots/ava/tokens/", {"name": "prod", "scopes": BOTH}).content.decode()
    token = re.search(r"<code>(mct_[^<]+)</code>", html).group(1)
    token_verify(token=token)
    assert "never" not in boss.get("/bots/ava/tokens/").content.decode()


def test_revoke(boss, workspace):
    html = boss.post("/bots/ava/tokens/", {"name": "old", "scopes": BOTH}).content.decode()
    token = re.search(r"<code>(mct_[^<]+)</code>", html).group(1)
    asked = boss.post("/bots/ava/tokens/revoke/", {"prefix": token[:12]})
    assert asked.status_code == 200 and "This cannot be undone." in asked.content.decode()
    assert "autofocus>Cancel</a>" in asked.content.decode()
    assert token_verify(token=token).bot == "ava"  # asked only: still valid
    response = boss.post("/bots/ava/tokens/revoke/", {"prefix": token[:12], "confirmed": "1"})
    assert response.status_code == 302
    assert token_verify(token=token) is None
    assert "Revoked" in boss.get("/bots/ava/tokens/").content.decode()


def test_revoke_only_this_bots_tokens(boss, workspace):
    html = boss.post("/bots/ben/tokens/", {"name": "b", "scopes": BOTH}).content.decode()
    token = re.search(r"<code>(mct_[^<]+)</code>", html).group(1)
    assert boss.post("/bots/ava/tokens/revoke/", {"prefix": token[:12]}).status_code == 404
    assert token_verify(token=token).bot == "ben"


def test_tokens_are_staff_only(ann, workspace):
    assert ann.get("/bots/ava/tokens/").status_code == 403
    assert ann.post("/bots/ava/tokens/", {"name": "x", "scopes": BOTH}).status_code == 403
    assert "Tokens</a>" not in ann.get("/bots/ava/").content.decode()


def test_connect_page_has_snippets_and_api_docs(ann, workspace):
    html = ann.get("/bots/ava/connect/").content.decode()
    assert "http://testserver/api/v1/facts" in html and 'href="http://testserver/api/docs"' in html
    assert "import urllib.request" in html and 'data-copy="curl-ava"' in html
    assert ann.get("/bots/ava/connect/", **HX).status_code == 200


def test_staff_register_a_bot_then_make_its_first_token(boss, workspace):
    page = boss.get("/bots/new/")
    assert page.status_code == 200 and "Register bot" in page.content.decode()
    made = boss.post("/bots/new/", {"slug": "scout", "name": "Scout"}, follow=True)
    html = made.content.decode()
    assert made.redirect_chain[-1][0] == "/bots/scout/tokens/"
    assert "Registered Scout. Make its first token below." in html
    token = re.search(
        r"<code>(mct_[^<]+)</code>",
        boss.post(
            "/bots/scout/tokens/", {"name": "first", "scopes": ["memory:read", "memory:write"]}
        ).content.decode(),
    ).group(1)
    assert token_verify(token=token).bot == "scout"


def test_a_taken_or_malformed_slug_is_said_beside_the_field(boss, workspace):
    boss.post("/bots/new/", {"slug": "scout"})
    taken = boss.post("/bots/new/", {"slug": "scout"}).content.decode()
    assert "Bot &#x27;scout&#x27; already exists." in taken
    bad = boss.post("/bots/new/", {"slug": "../etc"})
    assert bad.status_code == 200 and 'class="error" role="alert"' in bad.content.decode()


def test_only_staff_register_bots(ann, workspace):
    assert ann.get("/bots/new/").status_code == 403
    assert ann.post("/bots/new/", {"slug": "sneaky"}).status_code == 403
    assert "New bot" not in ann.get("/").content.decode()


def test_staff_make_a_read_only_token_and_set_project_access(boss, workspace):
    form = boss.get("/bots/ava/tokens/").content.decode()
    assert 'value="memory:read"' in form and 'value="memory:write"' in form
    assert form.count("checked") >= 2  # both grants ticked as the form opens
    html = boss.post("/bots/ava/tokens/", {"name": "ro", "scopes": ["memory:read"]})
    token = re.search(r"<code>(mct_[^<]+)</code>", html.content.decode()).group(1)
    assert token_verify(token=token).scopes == {"memory:read"}
    assert "memory:read only" in boss.get("/bots/ava/tokens/").content.decode()
    none = boss.post("/bots/ava/tokens/", {"name": "none"}).content.decode()
    assert "Choose at least one: memory:read or memory:write." in none

    done = boss.post(
        "/bots/ava/tokens/projects/", {"project": "apollo", "access": "read"}, follow=True
    )
    assert "ava joined project apollo: it may read its memory." in done.content.decode()
    assert "<strong>apollo</strong>: may read its memory" in done.content.decode()
    assert token_verify(token=token).read_only == {"apollo"}
    again = boss.post(
        "/bots/ava/tokens/projects/", {"project": "apollo", "access": "read_write"}, follow=True
    )
    assert "may read and write its memory" in again.content.decode()
    assert token_verify(token=token).read_only == frozenset()


def test_only_staff_set_project_access(ann, workspace):
    answer = ann.post("/bots/ava/tokens/projects/", {"project": "apollo", "access": "read"})
    assert answer.status_code == 403
