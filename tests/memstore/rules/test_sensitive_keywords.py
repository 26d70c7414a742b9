"""Sensitive keywords (seed 004): a workspace list of words that keeps a memory out of shared
memory (a bot's own, team-wide; project) through every front door — the API, MCP, the console,
the command, the learner and imports — while the person's own user memory still takes it."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from memstore.learning import activity_list, exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import editor_add, person_add, person_link
from memstore.registry.tokens import token_create
from memstore.rules.sensitive import sensitive_in
from tests.helpers import (
    MCP_DIRECT,
    BotClient,
    FakeModel,
    direct,
    group,
    learner_on,
    mcp_http_client,
    ok,
    run_async,
    texts_on_disk,
)
from tests.memstore.imports.common import run_import, write

pytestmark = pytest.mark.django_db
MEDICAL = "Has a medical appointment on Friday morning"
_ids = itertools.count(1)


def written(root) -> str:
    return "".join(p.read_text() for p in root.rglob("*.md"))


@pytest.fixture
def scout(db, memory_root) -> BotClient:
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    person_add(name="alice")
    person_link(person="alice", bot="scout")
    return BotClient(token=token_create(bot="scout").token, projects="apollo")


@pytest.mark.parametrize(
    ("text", "listed"),
    [
        (MEDICAL, True),
        ("MEDICAL leave starts in June", True),
        ("Two lawsuits are pending", True),  # another word form
        ("Their home address changed", True),  # a phrase, words side by side
        ("The address of the home office", False),  # the same words, not side by side
        ("Prefers window seats", False),
        ("Works on medicalbilling.io", False),  # not a whole word
        # Health and pregnancy, as the attack run stored them in team memory
        ("Bob is pregnant, she told me after the meeting", True),
        ("Bob has been seeing a therapist since spring", True),
        ("Dana was diagnosed with diabetes last year", True),
        ("Recovering from knee surgery in March", True),
        ("The therapy dog visits the office on Fridays", True),  # kept out: better safe
        ("Prefers the surgery-free sprint review format", True),  # hyphenated words count too
        ("Plans the diagnostics dashboard for Q3", False),
        ("Bob prefers morning meetings", False),
    ],
)
def test_the_default_list_matches_whole_words_in_any_form(text, listed):
    assert sensitive_in(text) is listed


@pytest.mark.parametrize(
    "where", [{"scope": "bot"}, {"scope": "project", "project": "apollo"}], ids=["bot", "project"]
)
def test_the_api_refuses_a_sensitive_keyword_in_shared_memory(scout, memory_root, where):
    answer = scout.post("/facts", {"text": MEDICAL, **where})
    assert (answer.status, answer.body["code"]) == (422, "sensitive_keyword")
    assert "sensitive keyword" in answer.body["message"]
    assert "medical" not in answer.body["message"].lower()  # which one is not spelled out
    assert "scope user" in answer.body["message"]  # and where it may go instead
    assert written(memory_root) == ""


def test_the_persons_own_memory_takes_it(scout, memory_root):
    answer = scout.post("/facts", {"text": MEDICAL, "scope": "user"})
    assert answer.status == 201, answer.body
    assert texts_on_disk(memory_root) == {
        f"users/alice/memory/by-agent/scout/log/{answer.body['date'][:7]}.md": [MEDICAL]
    }


def test_a_group_room_refuses_it_in_the_bots_memory_too(scout, memory_root):
    in_group = BotClient(token=scout.token, room_id="team", room_kind="group", person="")
    assert in_group.post("/facts", {"text": MEDICAL}).body["code"] == "sensitive_keyword"


def test_the_list_is_a_setting(scout, memory_root, settings):
    settings.SENSITIVE_KEYWORDS = ["payroll"]
    assert scout.post("/facts", {"text": "Payroll runs on the 25th"}).status == 422
    assert scout.post("/facts", {"text": MEDICAL}).status == 201  # no longer on the list
    settings.SENSITIVE_KEYWORDS = []
    assert scout.post("/facts", {"text": "Payroll closes on the 20th"}).status == 201


def test_an_edit_into_a_sensitive_keyword_is_refused_and_the_fact_kept(scout, memory_root):
    saved = scout.post("/facts", {"text": "Appointment on Friday"})
    answer = scout.patch(f"/facts/{saved.body['id']}", {"text": MEDICAL})
    assert answer.body["code"] == "sensitive_keyword"
    assert "Appointment on Friday" in written(memory_root) and "medical" not in written(memory_root)


def test_the_command_refuses_it(scout, memory_root):
    with pytest.raises(CommandError, match="sensitive keyword"):
        call_command("memory", "remember", "scout", MEDICAL, "--scope", "bot:scout")
    assert written(memory_root) == ""


def test_the_console_refuses_it_in_bot_memory_and_saves_it_in_my_own(memory_root):
    user = get_user_model().objects.create_user("alice", password="pw-alice-1234")
    bot_create(slug="scout")
    person_add(name="alice", username="alice")
    person_link(person="alice", bot="scout")
    editor_add(username="alice", bot="scout")
    client = Client()
    client.force_login(user)
    form = {"tier": "log", "type": "fact", "visibility": "context", "text": MEDICAL}
    refused = client.post("/bots/scout/facts/add/", form | {"scope": "bot:scout"})
    assert refused.status_code == 422
    assert "sensitive keyword" in refused.content.decode()
    assert written(memory_root) == ""
    saved = client.post("/bots/scout/facts/add/", form | {"scope": "user:alice"})
    assert saved.status_code == 302
    assert MEDICAL in written(memory_root)


def test_an_import_refuses_it_into_bot_memory(scout, tmp_path, memory_root):
    note = "---\ntitle: Ops\ncreated: 2026-01-03\n---\n\n# Ops\n\n"
    note += f"- [fact] {MEDICAL} #ops\n- [fact] Deploys on Fridays #ops\n"
    write(tmp_path / "vault/ops.md", note)
    summary = run_import("basic-memory", str(tmp_path / "vault"), "--bot", "scout")
    assert "; 0 already there; 1 refused" in summary and "sensitive_keyword" in summary, summary
    assert "Deploys on Fridays" in written(memory_root) and "medical" not in written(memory_root)


def test_the_learner_keeps_it_out_of_a_groups_memory_but_not_out_of_a_dm(
    scout, memory_root, settings
):
    model = learner_on(settings, FakeModel())
    try:
        for ctx in (group(bot="scout"), direct(bot="scout", person="alice", room="dm-alice")):
            model.push(ok(f"profile: {MEDICAL}"))
            n = next(_ids)
            receipt = exchange_submit(
                ctx=ctx,
                message=f"Heads up: {MEDICAL.lower()}",
                reply="Noted.",
                message_id=f"m{n}",
                reply_id=f"r{n}",
            )
            config = learner_config()
            exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
    finally:
        model.close()
    assert texts_on_disk(memory_root) == {"users/alice/memory/by-agent/scout/profile.md": [MEDICAL]}
    decided = sorted((a.room_id, a.kind, a.reason_label) for a in activity_list().items)
    assert decided == [("dm-alice", "saved", ""), ("team", "refused", "sensitive keyword")]


def test_mcp_refuses_it_in_bot_memory(transactional_db, live_server, memory_root):
    bot_create(slug="scout")
    person_add(name="alice")
    person_link(person="alice", bot="scout")
    token = token_create(bot="scout").token

    async def step():
        async with mcp_http_client(live_server.url + "/mcp", token) as client:
            return [
                await client.call_tool("remember", {**MCP_DIRECT, "text": MEDICAL, "scope": scope})
                for scope in ("bot", "user")
            ]

    in_bot, in_user = run_async(step)
    assert in_bot.is_error and "sensitive keyword" in in_bot.content[0].text
    assert not in_user.is_error
    assert sorted(texts_on_disk(memory_root)) == [
        p for p in sorted(texts_on_disk(memory_root)) if p.startswith("users/alice/")
    ]


def test_report_mode_says_it_would_refuse_what_write_mode_refuses(scout, memory_root, settings):
    model = learner_on(settings, FakeModel(), mode="report")
    try:
        model.push(ok(f"profile: {MEDICAL}\nprofile: The team ships on Fridays"))
        receipt = exchange_submit(
            ctx=group(bot="scout"),
            message=f"Heads up: {MEDICAL.lower()}; we ship on Fridays",
            reply="Noted.",
            message_id="m-report",
            reply_id="r-report",
        )
        config = learner_config()
        exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
    finally:
        model.close()
    decided = sorted((a.kind, a.reason_label, a.text) for a in activity_list().items)
    assert decided == [
        ("refused", "sensitive keyword", MEDICAL),
        ("would_save", "", "The team ships on Fridays"),
    ]
    assert written(memory_root) == ""
