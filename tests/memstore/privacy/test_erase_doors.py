"""One erasure for every front door: a fact about alice that was also sent in an exchange,
learned (proposed in report mode) and accepted in the review inbox, saved through the API with
an Idempotency-Key, cited by an upkeep proposal, cached as a vector and written into an old
version of a note is erased through each door (the API's forget and health fix, the console's
"Delete and erase" and Health's "Erase everywhere", About me's "Forget everywhere",
`manage.py memory erase --bot/--person/--all`). After each, `manage.py memory verify-forgotten`
run as a separate process exits 0, and replaying the Idempotency-Key returns no trace of it."""

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.test import Client

from memstore.console.review import proposals_decide
from memstore.console.viewer import Viewer
from memstore.facts import paths
from memstore.facts.markdown import fact_identity
from memstore.models import Proposal, ProposalReview
from memstore.prompt.notes import note_save, note_versions
from memstore.registry.bots import bot_create
from memstore.registry.people import editor_add, person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import (
    BotClient,
    FakeModel,
    direct,
    embed,
    learned,
    learner_on,
    remaining_kinds,
    run_command,
    verify_forgotten_child,
)

pytestmark = pytest.mark.django_db(transaction=True)

FACT = "Alice is allergic to hazelnuts"
FACT_ID = fact_identity(FACT)
ALICE_ADA = "users/alice/memory/by-agent/ada/profile.md"
KEY = {"HTTP_IDEMPOTENCY_KEY": "save-allergy-1"}
REMEMBER = {"text": FACT, "scope": "user", "tier": "profile"}


@dataclass
class World:
    """The workspace every door is tried on: bot ada (its API client), alice (a person with
    a console account, editor of ada) and boss (staff) logged in to their own clients."""

    ada: BotClient
    alice: Client
    boss: Client


@pytest.fixture
def model(settings):
    """The learner in report mode against the scripted model server."""
    model = learner_on(settings, FakeModel(), mode="report", attempts=1)
    yield model
    model.close()


@pytest.fixture
def world(model, django_user_model, settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    bot_create(slug="ada")
    alice_user = django_user_model.objects.create_user("alice", password="pw-alice-1234")
    boss_user = django_user_model.objects.create_user("boss", password="pw-b-1234", is_staff=True)
    person_add(name="alice", username="alice")
    person_link(person="alice", bot="ada")
    editor_add(username="alice", bot="ada")
    alice, boss = Client(), Client()
    alice.force_login(alice_user)
    boss.force_login(boss_user)
    ada = BotClient(token=token_create(bot="ada").token, room_id="dm-alice", person="alice")
    return World(ada=ada, alice=alice, boss=boss)


def spread(world: World, model: FakeModel, *, notes: tuple[str, ...]) -> None:
    """The fact everywhere a fact's text can be kept, each through its ordinary path."""
    learned(
        direct(bot="ada", person="alice"),
        model,
        f"profile: {FACT}",
        message_id="m1",
        message=f"Before lunch: {FACT.lower()}, so no pesto.",
        reply=f"Noted: {FACT}.",
    )
    boss = Viewer(person="boss", staff=True)
    decided = proposals_decide(bot="ada", viewer=boss, keys=[_pending_key()], decision="accepted")
    assert decided == 1
    # The bot saves it too, with a key (it is there already: 200 and the stored copy).
    saved = world.ada.post("/facts", REMEMBER, **KEY)
    assert (saved.status, saved.body["file"], saved.body["existed"]) == (200, ALICE_ADA, True)
    Proposal.objects.create(
        key="dup-allergy", origin="duplicate", action="merge", bot="ada",
        scope_key="user:alice", evidence=[{"id": FACT_ID, "text": FACT}], text=FACT,
        reason="Said twice",
    )  # fmt: skip
    embed(FACT)
    for kind, name in (("you", "alice"), ("me", "ada")):
        if kind in notes:
            note_save(kind=kind, name=name, text=f"Worth knowing: {FACT}.")
            note_save(kind=kind, name=name, text="Nothing special to know.")
            assert FACT in note_versions(kind=kind, name=name)[0].text
    kinds = {"file", "index", "history", "embedding", "exchange", "learning", "proposal"}
    assert kinds | {"review", "reply", "note"} <= remaining_kinds(FACT)
    assert traces(paths.memory_root()) != []


def _pending_key() -> str:
    from memstore.models import LearningEvent

    event = LearningEvent.objects.get(kind="would_save", text=FACT)
    assert not ProposalReview.objects.exists()
    return f"learner:{event.pk}"


def traces(memory_root) -> list[str]:
    """Every row and file that still holds the fact's words, found without the erasure's own
    list of stores: every column of every memstore model, every file under MEMORY_ROOT."""
    found = []
    for model in apps.get_app_config("memstore").get_models():
        for row in model.objects.all():
            for field in model._meta.concrete_fields:
                if FACT.lower() in str(getattr(row, field.attname)).lower():
                    found.append(f"{model.__name__}.{field.name} {row.pk}")
    for path in sorted(p for p in memory_root.rglob("*") if p.is_file()):
        if FACT.lower() in path.read_bytes().decode("utf-8", "replace").lower():
            found.append(str(path.relative_to(memory_root)))
    return found


# --- the doors ---------------------------------------------------------------------------------


def api_forget(world: World) -> None:
    answer = world.ada.post("/facts/forget", {"id": FACT_ID, "erase": True})
    assert answer.status == 200, answer.body


def api_health_fix(world: World) -> None:
    answer = world.ada.post("/health/memory/fix", {"action": "erase", "id": FACT_ID})
    assert (answer.status, answer.body) == (200, {"changed": 1})


def console_erase_as_staff(world: World) -> None:
    ref = {"file": ALICE_ADA, "id": FACT_ID}
    answer = world.boss.post("/bots/ada/facts/erase/", ref, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200


def console_erase_as_the_person(world: World) -> None:
    ref = {"file": ALICE_ADA, "id": FACT_ID}
    answer = world.alice.post("/bots/ada/facts/erase/", ref, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200


def _health_fix(client: Client) -> None:
    form = {"action": "erase", "shard": "user:alice|ada", "id": FACT_ID, "next": "/health/"}
    asked = client.post("/health/fix/", form).content.decode()  # irreversible: asked first
    assert "Erase this fact everywhere?" in asked and "autofocus>Cancel</a>" in asked
    answer = client.post("/health/fix/", {**form, "confirmed": "1"}, HTTP_REFERER="/health/")
    assert answer.status_code == 302
    messages = [str(m) for m in answer.wsgi_request._messages]
    assert messages == ["Done: erase (1 line)."]


def health_erase_as_staff(world: World) -> None:
    _health_fix(world.boss)


def health_erase_as_the_person(world: World) -> None:
    _health_fix(world.alice)


def about_me_forget_everywhere(world: World) -> None:
    answer = world.alice.post("/people/alice/forget/", {"id": FACT_ID}, HTTP_HX_REQUEST="true")
    assert "Forgotten everywhere (ada)." in answer.content.decode()


def command_erase_bot(world: World) -> None:
    run_command("memory", "erase", "--bot", "ada", FACT_ID, "--by", "ops")


def command_erase_person(world: World) -> None:
    run_command("memory", "erase", "--person", "alice", "--text", FACT, "--by", "alice")


def command_erase_all(world: World) -> None:
    run_command("memory", "erase", "--all", FACT_ID, "--by", "ops")


BOTH, PERSON, BOT = ("you", "me"), ("you",), ("me",)
DOORS: list[tuple[Callable[[World], None], tuple[str, ...]]] = [
    # (door, the notes within its reach: a bot's About me, a person's About you, staff both)
    (api_forget, BOT),
    (api_health_fix, BOT),
    (console_erase_as_staff, BOTH),
    (console_erase_as_the_person, PERSON),
    (health_erase_as_staff, BOTH),
    (health_erase_as_the_person, PERSON),
    (about_me_forget_everywhere, PERSON),
    (command_erase_bot, BOT),
    (command_erase_person, PERSON),
    (command_erase_all, BOTH),
]


@pytest.mark.parametrize(("door", "notes"), DOORS, ids=[d.__name__ for d, _ in DOORS])
def test_every_door_leaves_nothing_verify_forgotten_finds(world, model, memory_root, door, notes):
    spread(world, model, notes=notes)
    before = verify_forgotten_child(memory_root, FACT)
    assert before.returncode == 1, before.stderr

    door(world)

    after = verify_forgotten_child(memory_root, FACT)
    assert (after.returncode, after.stdout.strip()) == (0, "No copy remains."), after.stdout
    assert traces(memory_root) == []
    replay = world.ada.post("/facts", REMEMBER, **KEY)
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert FACT.lower() not in str(replay.body).lower()
    assert replay.body["text"] == "[erased]"
    assert FACT not in (memory_root / ALICE_ADA).read_text()  # the retry saved nothing
