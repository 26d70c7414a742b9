"""Grants: a token with memory:read only may read and is refused every write (403
`missing_grant` naming memory:write), and a bot with `read` membership of a project reads its
memory but may not write it. The write operations are found by walking the API's routes, so a
new write door can't be left out."""

import re

import pytest

from memoryconsole.api import api
from memoryconsole.api.auth import READS_BY_POST, writes
from memstore.registry.bots import bot_create, project_join
from memstore.registry.tokens import token_create, token_verify
from tests.helpers import BotClient, run_command

FACT_ID = "0123456789abcdef"


def _operations() -> list[tuple[str, str, str | None]]:
    """Every (method, path under /api/v1, url_name) the API serves, from its routers."""
    return [
        (method, path, view.url_name)
        for _, router in api._routers
        for path, view in router.path_operations.items()
        for operation in view.operations
        for method in operation.methods
    ]


def _concrete(path: str) -> str:
    # /facts/{fact_id}/links/{kind}/{target} -> a path the router matches
    return re.sub(r"\{[^}]+\}", lambda m: "related_to" if m.group() == "{kind}" else FACT_ID, path)


@pytest.fixture
def reader(tokens) -> BotClient:
    """Bot a, with a second token that may only read."""
    return BotClient(token=token_create(bot="a", name="reader", scopes=["memory:read"]).token)


def test_the_walk_finds_every_write_door():
    writing = {(m, _concrete(p)) for m, p, name in _operations() if writes(m, name)}
    assert {
        ("POST", "/facts"),
        ("PATCH", f"/facts/{FACT_ID}"),
        ("DELETE", f"/facts/{FACT_ID}"),
        ("POST", "/exchanges"),
        ("PUT", "/notes/me"),
        ("POST", "/facts/summarize"),
    } <= writing
    # A POST that changes nothing is a decision written down, not a default.
    assert {"prompt_changes"} == READS_BY_POST


def test_a_read_only_token_is_refused_every_write(reader, bot_a, memory_root):
    saved = bot_a.post("/facts", {"text": "Prefers tea", "scope": "bot"})
    assert saved.status == 201
    before = sorted((p.relative_to(memory_root), p.read_bytes()) for p in memory_root.rglob("*.md"))
    refused = []
    for method, path, name in _operations():
        if not writes(method, name):
            continue
        answer = reader.call(method, _concrete(path), {})
        refused.append((method, path))
        assert answer.status == 403, (method, path, answer.body)
        assert answer.body["code"] == "missing_grant", (method, path)
        assert answer.body["message"] == (
            f"This token has memory:read only; memory:write is needed to {method} "
            f"{'/api/v1' + _concrete(path)}."
        )
        assert answer.body["detail"] == {"grant": "memory:write", "granted": ["memory:read"]}
    assert len(refused) >= 10
    after = sorted((p.relative_to(memory_root), p.read_bytes()) for p in memory_root.rglob("*.md"))
    assert after == before  # nothing was written


def test_a_read_only_token_still_reads(reader, bot_a):
    bot_a.post("/facts", {"text": "Prefers green tea", "scope": "bot"})
    found = reader.get("/recall", query="tea")
    assert found.status == 200
    assert [r["text"] for r in found.body["items"]] == ["Prefers green tea"]
    assert reader.get("/facts").body["items"][0]["text"] == "Prefers green tea"
    assert "Prefers green tea" in reader.get("/prompt").body["text"]
    changes = reader.post("/prompt/changes", {"previous": ""})
    assert changes.status != 403


def test_existing_tokens_keep_full_access(tokens):
    caller = token_verify(token=tokens["a"])
    assert caller.scopes == {"memory:read", "memory:write"}


def test_read_membership_reads_the_project_but_may_not_write_it(tokens, bot_a):
    writer = BotClient(token=tokens["b"], projects="apollo")
    assert (
        writer.post(
            "/facts", {"text": "Launch is in March", "scope": "project", "project": "apollo"}
        ).status
        == 201
    )
    project_join(bot="a", project="apollo", access="read")
    a = BotClient(token=tokens["a"], projects="apollo")
    assert "Launch is in March" in a.get("/prompt").body["text"]
    assert [r["text"] for r in a.get("/recall", query="launch").body["items"]] == [
        "Launch is in March"
    ]
    refused = a.post("/facts", {"text": "Launch moved", "scope": "project", "project": "apollo"})
    assert refused.status == 403
    assert refused.body["code"] == "missing_grant"
    assert "project 'apollo'" in refused.body["message"]
    assert "read_write" in refused.body["message"]
    assert refused.body["detail"] == {"grant": "read_write", "project": "apollo"}
    # Its own memory it still writes.
    assert a.post("/facts", {"text": "Launch moved", "scope": "bot"}).status == 201
    # Its own copy in the project stays too: a forget says why, rather than "not found".
    project_join(bot="a", project="apollo", access="read_write")
    own = a.post("/facts", {"text": "Budget is 40k", "scope": "project", "project": "apollo"})
    assert own.status == 201
    project_join(bot="a", project="apollo", access="read")
    kept = a.post("/facts/forget", {"text": "budget is 40k"})
    assert (kept.status, kept.body["code"]) == (403, "missing_grant")
    assert kept.body["detail"] == {"grant": "read_write", "project": "apollo"}
    assert "Budget is 40k" in a.get("/prompt").body["text"]
    # Full access again: the change is seen on the very next call.
    project_join(bot="a", project="apollo", access="read_write")
    again = a.post("/facts", {"text": "Launch moved", "scope": "project", "project": "apollo"})
    assert again.status == 201


def test_bots_command_sets_grants(db, memory_root):
    bot_create(slug="scout")
    token = run_command("bots", "token", "scout", "--scopes", "memory:read").strip()
    reader = BotClient(token=token, room_kind="routine", person="")
    assert reader.get("/facts").status == 200
    assert reader.post("/facts", {"text": "x"}).body["code"] == "missing_grant"
    listing = run_command("bots", "tokens", "scout")
    assert "memory:read " in listing and "memory:write" not in listing
    assert "(read_write)" in run_command("bots", "join", "scout", "apollo")
    assert "(read)" in run_command("bots", "join", "scout", "apollo", "--access", "read")
    assert run_command("bots", "list").strip() == "scout  apollo (read)  1 active token(s)"
    me = reader.get("/me").body
    assert (me["grants"], me["read_only_projects"]) == (["memory:read"], ["apollo"])
    with pytest.raises(Exception, match="Unknown grant 'memory:admin'"):
        run_command("bots", "token", "scout", "--scopes", "memory:admin")
