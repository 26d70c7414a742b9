"""The workspace (server) scope (seed 003, "apps contributing context"): an app's token writes
records with a visibility and a weight; every conversation's prompt loads the `context` ones,
weightiest first, within the block's budget; `searchable` ones are found by recall only;
`weight` is refused outside that scope, and the scope is refused to anything but an app."""

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient, facts_on_disk

SHARD = "server/workspace/memory/by-agent/crm"


@pytest.fixture
def crm(db, memory_root) -> BotClient:
    bot_create(slug="crm", app=True)
    return BotClient(
        token=token_create(bot="crm").token, room_id="crm-sync", room_kind="event", person=""
    )


@pytest.fixture
def ava(db) -> BotClient:
    bot_create(slug="ava")
    person_add(name="alice")
    person_link(person="alice", bot="ava")
    return BotClient(token=token_create(bot="ava").token, room_id="dm-alice", person="alice")


def record(crm, text, weight=None, visibility="context", tier="profile"):
    body = {"text": text, "scope": "server", "tier": tier, "visibility": visibility}
    answer = crm.post("/facts", body | ({"weight": weight} if weight is not None else {}))
    assert answer.status == 201, answer.body
    return answer.body


def workspace_block(prompt_text: str) -> list[str]:
    block = prompt_text.split("### Workspace knowledge", 1)[1].split("\n### ", 1)[0]
    return [line for line in block.splitlines() if line.startswith("- (")]


def test_an_app_writes_a_weighted_record_into_the_workspace_files(crm, memory_root):
    saved = record(crm, "Acme Corp is a key account (ARR 240k)", weight=5)
    assert (saved["scope"], saved["scope_name"], saved["bot"]) == ("server", "workspace", "crm")
    assert saved["meta"]["weight"] == "5"
    [line] = facts_on_disk(memory_root)[f"{SHARD}/profile.md"]
    assert (line.text, line.meta["weight"], line.meta["visibility"]) == (
        "Acme Corp is a key account (ARR 240k)",
        "5",
        "context",
    )


def test_every_conversation_loads_the_records_weightiest_first(crm, ava):
    record(crm, "Globex renews in March", weight=1)
    record(crm, "Acme Corp is a key account", weight=5)
    record(crm, "Initech pays late", weight=2)
    record(crm, "Umbrella's CRM id is 4411", visibility="searchable", weight=4)
    record(crm, "Sync cursor 88120", visibility="hidden")
    in_dm = ava.get("/prompt").body["text"]
    in_group = BotClient(token=ava.token, room_id="team", room_kind="group", person="")
    for text in (in_dm, in_group.get("/prompt").body["text"]):
        lines = workspace_block(text)
        assert [line.split(") ", 1)[1] for line in lines] == [
            "Acme Corp is a key account (saved by crm)",  # the app saved them, not ava
            "Initech pays late (saved by crm)",
            "Globex renews in March (saved by crm)",
        ]
        assert "1 more fact on disk" in text  # the searchable one, left for recall
        assert "Sync cursor" not in text
    found = [f["text"] for f in ava.get("/recall", query="Umbrella CRM id").body["items"]]
    assert found == ["Umbrella's CRM id is 4411"]
    assert ava.get("/recall", query="sync cursor").body["items"] == []


def test_the_block_keeps_to_its_budget_and_says_what_it_left(crm, ava):
    for n in range(25):
        record(crm, f"Account {n:02d} is active", weight=1 + n % 5)
    text = ava.get("/prompt").body["text"]
    lines = workspace_block(text)
    assert len(lines) == 20
    assert all("Account" in line for line in lines)
    weights = [1 + int(line.split("Account ")[1][:2]) % 5 for line in lines]
    assert weights == sorted(weights, reverse=True)  # all five weight-5 records are in
    assert "5 more facts on disk" in text


def test_no_workspace_records_no_block(ava):
    assert "Workspace knowledge" not in ava.get("/prompt").body["text"]


def test_a_bot_that_is_not_an_app_may_not_write_it(ava, memory_root):
    answer = ava.post("/facts", {"text": "Acme is big", "scope": "server"})
    assert (answer.status, answer.body["code"]) == (403, "forbidden")
    assert "Only an app's token writes workspace memory" in answer.body["message"]
    assert facts_on_disk(memory_root) == {}


@pytest.mark.parametrize("scope", [{"scope": "bot"}, {"scope": "user"}])
def test_weight_is_refused_outside_the_workspace_scope(ava, memory_root, scope):
    answer = ava.post("/facts", {"text": "Prefers tea", "weight": 3, **scope})
    assert answer.status == 422
    assert "weight is only for workspace records (scope=server)" in answer.body["message"]
    assert facts_on_disk(memory_root) == {}


@pytest.mark.parametrize("weight", [0, -1, 10.5, "heavy"])
def test_weight_out_of_range_is_refused(crm, memory_root, weight):
    answer = crm.post("/facts", {"text": "Acme", "scope": "server", "weight": weight})
    assert answer.status == 422
    assert "weight" in answer.body["message"]
    assert facts_on_disk(memory_root) == {}


def test_a_sensitive_keyword_is_kept_out_of_workspace_memory(crm, memory_root):
    answer = crm.post("/facts", {"text": "Acme lawsuit settles in May", "scope": "server"})
    assert answer.body["code"] == "sensitive_keyword"


def test_the_app_forgets_its_record_and_the_prompts_lose_it(crm, ava):
    saved = record(crm, "Acme Corp is a key account", weight=5)
    assert crm.post("/facts/forget", {"id": saved["id"], "scope": "server"}).status == 200
    assert "Acme" not in ava.get("/prompt").body["text"]
