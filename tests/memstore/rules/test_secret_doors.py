"""Every secret family and evasion refused through the real front doors, in every scope and in
metadata (the API's `src`, an import's `tags=`), with nothing written: the content check lives
in the one write path (`memstore.rules.content`), so this drives a sample of each door rather
than the whole corpus (test_policy.py runs the whole corpus against the detector itself)."""

import re

import pytest

from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import MCP_DIRECT, BotClient, mcp_http_client, run_async
from tests.memstore.imports.common import run_import, write
from tests.memstore.secret_corpus import EVASIONS, FAMILY_SECRETS, KEY_VALUES

# A key with no prefix to name it (a Mailgun or Datadog key, an app secret): refused as a
# metadata value, where nothing but a key is that random.
RANDOM_KEY = "wz2CN4xUPtPdZZdd3nc3Rydpc5y242"
SCOPES = [{"scope": "bot"}, {"scope": "user"}, {"scope": "project", "project": "apollo"}]


@pytest.fixture
def scout(db, memory_root) -> BotClient:
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    person_add(name="alice")
    person_link(person="alice", bot="scout")
    return BotClient(token=token_create(bot="scout").token, projects="apollo")


def written(root) -> str:
    return "".join(p.read_text() for p in root.rglob("*.md"))


@pytest.mark.parametrize("where", SCOPES, ids=lambda s: s["scope"])
def test_the_api_refuses_every_family_as_text_and_as_src(scout, memory_root, where):
    assert scout.post("/facts", {"text": "Likes tea", **where}).status == 201  # the door works
    texts = FAMILY_SECRETS + list(EVASIONS.values())
    statuses = {text: scout.post("/facts", {"text": text, **where}).status for text in texts}
    assert {text: code for text, code in statuses.items() if code != 422} == {}
    for family, value in KEY_VALUES.items():
        if len(value) > 200:  # too long for any metadata value: refused as invalid already
            continue
        answer = scout.post("/facts", {"text": f"Deploy notes {family}", "src": value, **where})
        assert (answer.status, answer.body["code"]) == (422, "secret_refused"), family
        assert value not in answer.body["message"]
    answer = scout.post("/facts", {"text": "Deploy notes", "src": RANDOM_KEY, **where})
    assert (answer.status, answer.body["code"]) == (422, "secret_refused")
    ordinary = {"text": "Deploy notes", "src": "locomo:conv-26:D1:3,D1:5", **where}
    assert scout.post("/facts", ordinary).status == 201
    assert written(memory_root).count("\n- (") == 2


def test_an_import_refuses_secrets_in_tags(scout, tmp_path, memory_root):
    # Every family, whatever its characters ("SG.x.y", "hvs.…", "a+b/c=", "$"): a tag cut at
    # its first dot or plus would leave half a key in the tags and half in the text.
    values = [v for v in KEY_VALUES.values() if " " not in v and len(v) <= 200]
    values += [EVASIONS[f"{family}/cyrillic"] for family in ("stripe", "github", "aws")]
    values += [RANDOM_KEY, "ZGVwbG95Onp5cHNERndPazRaZQ=="]
    lines = [f"- [fact] Deploy step {i} #ops #{value}" for i, value in enumerate(values)]
    note = "---\ntitle: Ops\ncreated: 2026-01-03\n---\n\n# Ops\n\n" + "\n".join(lines) + "\n"
    write(tmp_path / "vault/ops.md", note + "- [fact] Deploys on Fridays #ops\n")

    summary = run_import("basic-memory", str(tmp_path / "vault"), "--bot", "scout")

    assert re.match(rf"Imported 1 facts?; 0 already there; {len(values)} refused", summary)
    assert all(value not in written(memory_root) for value in values)
    assert "Deploys on Fridays" in written(memory_root)


def test_mcp_refuses_every_family(transactional_db, live_server, memory_root):
    bot_create(slug="scout")
    person_add(name="alice")
    person_link(person="alice", bot="scout")
    token = token_create(bot="scout").token
    texts = [v for v in KEY_VALUES.values() if len(v) <= 500]  # longer: invalid already
    texts += [EVASIONS[f"stripe/{how}"] for how in ("greek", "hex")]

    async def step():
        async with mcp_http_client(live_server.url + "/mcp", token) as client:
            return [
                await client.call_tool("remember", {**MCP_DIRECT, "text": text, "scope": scope})
                for text in texts
                for scope in ("bot", "user")
            ]

    answers = run_async(step)
    assert [
        a.content[0].text[:90]
        for a in answers
        if not (a.is_error and "secret" in a.content[0].text)
    ] == []
    assert written(memory_root) == ""
