"""Full pages and the partials htmx asks for: home, a bot's page, search, filters, paging."""

import os
import re
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memstore.errors import SecretRefused
from memstore.rules.failures import failure_record
from tests.helpers import HX, day, texts, write_memory

pytestmark = pytest.mark.django_db


def test_pages_need_login(client, workspace):
    response = client.get("/bots/ava/")
    assert (response.status_code, response["Location"]) == (302, "/login/?next=/bots/ava/")


def test_login_then_home(client, workspace):
    assert "Log in" in client.get("/login/").content.decode()
    response = client.post("/login/", {"username": "ann", "password": "pw-ann-1234"})
    assert (response.status_code, response["Location"]) == (302, "/")
    assert "ava" in client.get("/").content.decode()


def test_home_shows_bots_counts_changes_and_failures(ann, workspace):
    failure_record(
        root=workspace, bot="ava", op="remember", error=SecretRefused("Looks like a password.")
    )
    html = ann.get("/").content.decode()
    row = re.search(r'<a href="/bots/ava/">ava</a>.*?</tr>', html, re.S).group()
    # own 6, about people: only ann's 1 (sam's is private), project 1, room 1
    assert re.findall(r"<td[^>]*>(\d+)</td>", row) == ["6", "1", "1", "1"]
    assert "Refused writes" in html and "Looks like a password." in html
    assert "Recent changes" in html and "Booked the rooftop venue" in html  # synced: hand edit
    assert "Sam is vegetarian" not in html


def test_bot_page_full_and_partial(ann, workspace):
    full = ann.get("/bots/ava/")
    html = full.content.decode()
    assert html.startswith("<!doctype html>") and 'id="fact-list"' in html
    assert re.findall(r'aria-current="page">Own memory <span class="count">(\d+)', html) == ["6"]
    # newest first; on the same day, the line added last comes first
    assert texts(full)[1:3] == [
        "Catering quotes arrive by email",
        "Booked the rooftop venue for the offsite",
    ]
    part = ann.get("/bots/ava/", **HX)
    body = part.content.decode()
    assert body.lstrip().startswith('<div id="fact-list">') and "<html" not in body
    assert texts(part) == texts(full)
    assert "HX-Request" in part["Vary"]


def test_fact_row_shows_date_tier_scope_origin_and_new(ann, workspace):
    html = ann.get("/bots/ava/?q=rooftop", **HX).content.decode()
    assert f'<time datetime="{day(1)}">' in html
    assert '<span class="badge new">new</span>' in html
    assert '<span class="badge">decision</span>' in html
    assert "by ava via tool" in html
    old = ann.get("/bots/ava/?q=2020", **HX).content.decode()
    assert "badge new" not in old and "via hand-edit" in old  # found on disk by the sync


def test_hidden_facts_are_shown_and_marked(ann, workspace):
    html = ann.get("/bots/ava/?q=escalation", **HX).content.decode()
    assert "<mark>Escalation</mark> phone tree" in html and "hidden-badge" in html


def test_fact_text_is_escaped(ann, workspace):
    for response in (ann.get("/bots/ava/"), ann.get("/bots/ava/?q=release", **HX)):
        html = response.content.decode()
        assert "<script>alert" not in html
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html


def test_filters_tier_type_month(ann, workspace):
    assert texts(ann.get("/bots/ava/?tier=note", **HX)) == ["Catering quotes arrive by email"]
    assert texts(ann.get("/bots/ava/?type=decision", **HX)) == [
        "Booked the rooftop venue for the offsite"
    ]
    assert texts(ann.get("/bots/ava/?month=2020-01", **HX)) == ["Old memories of 2020"]
    assert len(texts(ann.get("/bots/ava/?month=not-a-month", **HX))) == 6  # ignored


def test_tabs_show_people_projects_rooms(ann, workspace):
    assert texts(ann.get("/bots/ava/?tab=people", **HX)) == [
        "Ann wants reports to lead with decisions"
    ]
    assert texts(ann.get("/bots/ava/?tab=projects", **HX)) == ["Launch goal is 500 beta sign-ups"]
    assert texts(ann.get("/bots/ava/?tab=rooms", **HX)) == ["The general room speaks English"]


def test_search_form_works_without_javascript(ann, workspace):
    html = ann.get("/bots/ava/").content.decode()
    form = re.search(r'<form class="filters" method="get" action="/bots/ava/"[^>]*>', html).group()
    assert 'hx-trigger="input changed delay:250ms, submit"' in form
    assert 'hx-get="/bots/ava/"' in form
    assert texts(ann.get("/bots/ava/?q=budgets&exact=1")) == [
        "Plans offsites and budgets for the Lisbon team"
    ]


def _many(root, bot: str, count: int) -> None:
    lines = [f"- ({day(i % 300)}) Fact number {i} about paging" for i in range(count)]
    path = write_memory(root, f"agents/{bot}/memory/profile.md", *lines)
    # Written a minute ago: a file younger than the sync's racy window is digested again on
    # the next read (its mtime can't yet prove it unchanged), which would make the query
    # count depend on how fast the machine is.
    past = time.time() - 60
    os.utime(path, (past, past))


def test_paging_walks_every_fact_once(ann, memory_root, people):
    _many(memory_root, "pager", 120)
    seen, summaries, url = [], [], "/bots/pager/"
    while url:
        response = ann.get(url, **HX)
        seen += texts(response)
        summaries += re.findall(
            r'<p class="summary" role="status">([^<]+)</p>', response.content.decode()
        )
        more = re.search(r'<a href="([^"]+)"[^>]*>Older facts', response.content.decode())
        url = more.group(1).replace("&amp;", "&") if more else ""
    assert sorted(seen) == sorted(f"Fact number {i} about paging" for i in range(120))
    assert summaries == ["1–50 of 120 facts", "51–100 of 120 facts", "101–120 of 120 facts"]
    html = ann.get("/bots/pager/", **HX).content.decode()
    assert 'hx-swap="outerHTML show:#fact-list:top"' in html  # the next page starts at the top


def test_query_count_is_constant(ann, memory_root, people):
    _many(memory_root, "small", 60)
    _many(memory_root, "large", 3000)
    counts = []
    for url in (
        "/bots/small/",
        "/bots/large/",
        "/bots/small/?cursor=2020-01-01_999999999",
        "/bots/large/?cursor=2020-01-01_999999999",
    ):
        ann.get(url, **HX)  # first request syncs the new files
        with CaptureQueriesContext(connection) as queries:
            ann.get(url, **HX)
        counts.append(len(queries))
    assert counts == [counts[0]] * 4 and counts[0] <= 7


def test_unknown_bot_is_404(ann, workspace):
    assert ann.get("/bots/nobody/").status_code == 404
    assert ann.get("/bots/..%2Fetc/").status_code == 404


def test_csp_with_nonce_and_no_inline_script(ann, workspace):
    response = ann.get("/bots/ava/")
    policy = response["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
    html = response.content.decode()
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and all(f'nonce="{nonce}"' in s and "src=" in s for s in scripts)
    assert "script-src 'self' 'nonce-" in policy and "unsafe-inline" not in policy
    assert not re.search(r"\son[a-z]+=", html)  # no inline event handlers
    assert '"X-CSRFToken": "' in re.search(r"<body[^>]*>", html).group()


def test_mutations_need_the_csrf_token(workspace, people):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(people["ann"])
    data = {"file": "agents/ava/memory/profile.md", "id": "0" * 16}
    assert client.post("/bots/ava/facts/delete/", data).status_code == 403
    assert client.post("/bots/ava/clear/").status_code == 403


def test_back_button_restore_gets_the_whole_page(ann, workspace):
    response = ann.get(
        "/bots/ava/?q=offs", HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert response.content.decode().startswith("<!doctype html>")
