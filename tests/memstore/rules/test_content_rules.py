"""Every front door × every content rule (SPEC §4): a secret (in any scope) and a person's
excluded topic are refused by the API (POST and PATCH), the console (edit and restore), the
`memory remember` command and the learner alike; nothing is written, and each refusal is in the
failure log with the bot, the room where there is one, and the error's code — never the secret.
"""

import itertools
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.learning import exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.models import PersonSettings
from memstore.registry.bots import bot_create
from memstore.registry.people import editor_add, person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient, FakeModel, direct, ok

pytestmark = pytest.mark.django_db

SHARD = "users/alice/memory/by-agent/a"
PROFILE = f"{SHARD}/profile.md"
RULES = {
    "secret": ("Staging login password: hunter22x", "secret_refused"),
    "topic": ("Has a health appointment on Monday", "topic_excluded"),
}
_ids = itertools.count(1)


@pytest.fixture
def tokens(db) -> dict[str, str]:
    bot_create(slug="a", display_name="A")
    return {"a": token_create(bot="a", name="tests").token}


@pytest.fixture
def learning(settings):
    """Learning in write mode against the scripted model (tests/helpers.py)."""
    model = FakeModel()
    settings.LEARNING_BASE_URL, settings.LEARNING_MODEL = model.url, "scripted"
    settings.LEARNING_MODE, settings.LEARNING_RETRY_WAIT = "write", 0.0
    yield model
    model.close()


@pytest.fixture
def alice(db, tokens):
    """alice: a console account, the registered person bot a acts for, and a's editor."""
    user = get_user_model().objects.create_user("alice", password="pw-alice-1234")
    PersonSettings.objects.create(user=user, excluded_topics=["health"])
    person_add(name="alice", username="alice")
    person_link(person="alice", bot="a")
    editor_add(username="alice", bot="a")
    return user


def memory(root) -> dict[str, bytes]:
    """The memory files (the failure log beside them is not memory)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.md") if p.is_file()}


def failures(root) -> list[dict]:
    path = root / "failures.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def hand_written(root, *lines: str) -> None:
    path = root / PROFILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# Profile\n\n" + "".join(f"{line}\n" for line in lines))
    index_sync(scopes=[Scope("user", "alice")])


def console(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def api_post(root, text, *, tokens, alice) -> int:
    return BotClient(token=tokens["a"]).post("/facts", {"text": text, "scope": "user"}).status


def api_post_bot_scope(root, text, *, tokens, alice) -> int:
    # The bot's own memory: secrets are refused there too, and so is the excluded topic of
    # the person in the (direct) room.
    return BotClient(token=tokens["a"]).post("/facts", {"text": text}).status


def api_patch(root, text, *, tokens, alice) -> int:
    hand_written(root, "- (2026-11-01) Likes tea")
    path = f"/facts/{fact_identity('Likes tea')}"
    return BotClient(token=tokens["a"]).patch(path, {"text": text}).status


def console_edit(root, text, *, tokens, alice) -> int:
    hand_written(root, "- (2026-11-01) Likes tea")
    data = {"file": PROFILE, "id": fact_identity("Likes tea"), "expected": "Likes tea"}
    return console(alice).post("/bots/a/facts/edit/", data | {"text": text}).status_code


def console_restore(root, text, *, tokens, alice) -> int:
    hand_written(root, f"- (2026-11-01) {text}")  # a hand edit is the person's own business
    ref = {"file": PROFILE, "id": fact_identity(text)}
    client = console(alice)
    assert client.post("/bots/a/facts/delete/", ref).status_code in (200, 302)
    return client.post("/bots/a/facts/undo/", ref).status_code


def command(root, text, *, tokens, alice) -> int:
    try:
        call_command("memory", "remember", "a", text, "--scope", "user:alice")
    except CommandError:
        return 422
    return 201


DOORS = [api_post, api_post_bot_scope, api_patch, console_edit, console_restore, command]


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.__name__)
def test_every_front_door_obeys_every_rule(memory_root, tokens, alice, door, rule):
    text, code = RULES[rule]
    status = door(memory_root, "Placeholder", tokens=tokens, alice=alice)  # the door works
    assert status < 400, door.__name__
    before, logged = memory(memory_root), len(failures(memory_root))
    status = door(memory_root, text, tokens=tokens, alice=alice)
    assert status >= 400
    after = memory(memory_root)
    assert {k: v for k, v in after.items() if text.encode() in v} == {
        k: v for k, v in before.items() if text.encode() in v
    }
    [failure] = failures(memory_root)[logged:]
    assert (failure["bot"], failure["code"]) == ("a", code)
    if rule == "secret":
        assert "hunter22x" not in (memory_root / "failures.jsonl").read_text()


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_learner_obeys_every_rule(memory_root, learning, tokens, alice, rule):
    text, code = RULES[rule]
    learning.push(ok(f"profile: {text}"))
    n = next(_ids)
    receipt = exchange_submit(
        ctx=direct(bot="a", person="alice", room="dm-alice"),
        # Not a request to remember (that is saved at once, tests/api/test_asked_to_remember.py): the
        # learner alone decides.
        message=f"By the way: {text}",
        reply="Noted.",
        message_id=f"m{n}",
        reply_id=f"r{n}",
    )
    config = learner_config()
    assert exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
    assert not any(text.encode() in v for v in memory(memory_root).values())
    [failure] = failures(memory_root)
    assert (failure["bot"], failure["code"], failure["room"], failure["via"]) == (
        "a",
        code,
        "dm-alice",
        "learner",
    )
    assert "hunter22x" not in (memory_root / "failures.jsonl").read_text()
