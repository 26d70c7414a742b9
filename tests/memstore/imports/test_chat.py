"""`manage.py import chat`: a chat history sent through summarize, chunk by chunk within the
learning budget, to the scripted OpenAI-compatible model server over real HTTP.

The ChatGPT export reproduced is OpenAI's data export `conversations.json`: a list of
conversations with `title`, `create_time`, `current_node` and a `mapping` of nodes (`id`,
`parent`, `children`, `message` with `author.role`, `content.content_type` and
`content.parts`), where an edited message leaves its first version on a branch off the path
to `current_node`.
"""

import json

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.people import person_add
from tests.helpers import FakeModel, learner_on, ok, prompt_of
from tests.memstore.imports.common import all_facts, md_tree, run_import, write


def node(nid: str, parent: str | None, role: str | None, text: str = "", children=()) -> dict:
    message = None
    if role:
        message = {
            "id": nid,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": 1767225600.0,
            "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully",
            "metadata": {},
        }
    return {"id": nid, "message": message, "parent": parent, "children": list(children)}


EXPORT = [
    {
        "title": "Lisbon offsite",
        "create_time": 1767225600.0,
        "update_time": 1767229200.0,
        "id": "conv-1",
        "current_node": "a-2",
        "mapping": {
            "root": node("root", None, None, children=["s-1"]),
            "s-1": node("s-1", "root", "system", "", children=["u-old", "u-1"]),
            "u-old": node("u-old", "s-1", "user", "Book Porto instead", children=[]),
            "u-1": node("u-1", "s-1", "user", "We fly to Lisbon on May 4.", children=["a-1"]),
            "a-1": node("a-1", "u-1", "assistant", "Noted: May 4.", children=["u-2"]),
            "u-2": node("u-2", "a-1", "user", "I am vegetarian.", children=["a-2"]),
            "a-2": node("a-2", "u-2", "assistant", "I'll remember that.", children=[]),
        },
    }
]


@pytest.fixture
def model(settings):
    fake = learner_on(settings, FakeModel())
    yield fake
    fake.close()


@pytest.fixture
def scout(db):
    bot_create(slug="scout")
    person_add(name="sam")
    return "scout"


def test_report_mode_by_default_writes_nothing(model, scout, tmp_path, memory_root):
    path = write(tmp_path / "export" / "conversations.json", json.dumps(EXPORT, indent=2))
    model.push(ok("profile: Sam is vegetarian\nlog: The team flies to Lisbon on May 4\n"))

    summary = run_import("chat", str(path), "--bot", "scout", "--person", "sam")

    assert md_tree(memory_root) == {}
    line = json.dumps(EXPORT, indent=2)
    first = line[: line.index('"conv-1"')].count("\n") + 1
    assert summary.splitlines() == [
        "Proposed (report mode: nothing written): 2 facts from 1 of 1 chunks; 0 refused; "
        "0 lines skipped.",
        f"  profile: Sam is vegetarian (src=conversations.json:{first})",
        f"  log: The team flies to Lisbon on May 4 (src=conversations.json:{first})",
    ]
    sent = prompt_of(model.requests[0])
    assert "user: We fly to Lisbon on May 4." in sent and "assistant: Noted: May 4." in sent
    assert "Porto" not in sent  # the edited-away branch is not the conversation


def test_write_mode_saves_with_the_source_line(model, scout, tmp_path, memory_root):
    path = write(tmp_path / "conversations.json", json.dumps(EXPORT))
    model.push(ok("profile: Sam is vegetarian\n"))

    summary = run_import("chat", str(path), "--bot", "scout", "--person", "sam", "--write")

    assert summary.startswith("Saved: 1 facts from 1 of 1 chunks")
    facts = all_facts(memory_root)["users/sam/memory/by-agent/scout/profile.md"]
    assert [f.split(" <!--")[0][15:] for f in facts] == ["Sam is vegetarian"]
    assert "src=conversations.json:1 " in facts[0] and "via=learner" in facts[0]


def test_plain_text_in_chunks_stops_when_the_budget_is_spent(
    model, scout, tmp_path, settings, memory_root
):
    settings.LEARNING_DAILY_TOKENS = 150
    path = write(
        tmp_path / "chat.txt", "".join(f"line {i}: " + "x" * 990 + "\n" for i in range(24))
    )
    for _ in range(3):
        model.push(ok("NONE", tokens=100))

    summary = run_import("chat", str(path), "--bot", "scout")

    assert len(model.requests) == 2
    assert summary.splitlines()[:2] == [
        "Proposed (report mode: nothing written): 0 facts from 2 of 3 chunks; 0 refused; "
        "0 lines skipped.",
        "  stopped: Daily token budget exhausted: 200 of 150 tokens used today. 1 chunks left "
        "for another run.",
    ]


def test_unknown_person_is_never_created(model, db, tmp_path, memory_root):
    bot_create(slug="scout")
    path = write(tmp_path / "chat.txt", "I am vegetarian\n")
    summary = run_import("chat", str(path), "--bot", "scout", "--person", "zed")
    assert "person 'zed' is not registered" in summary
    assert model.requests == []


def test_a_dry_run_calls_no_model(model, scout, tmp_path, memory_root):
    path = write(tmp_path / "chat.txt", "We fly to Lisbon on May 4\n")
    summary = run_import("chat", str(path), "--bot", "scout", "--dry-run", "--write")
    assert "dry run: 1 chunks of at most 8,000 characters would go to the learning model" in summary
    assert model.requests == [] and md_tree(memory_root) == {}
