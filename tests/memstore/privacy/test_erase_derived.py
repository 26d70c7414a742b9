"""Erase finds what was made from a fact. Each derived kind is made through its real path — the
"remember that" copy kept with the person's name in a group, a synthesis merge, the kept line of
a health merge, an open upkeep proposal, a lesson accepted into a bot's About me note — and the
source is erased through a door (the API, the console, `manage.py memory erase`). The copy is
then gone from the files, the index, recall, the prompt and the export, and
`manage.py memory verify-forgotten` lists it before and says "No copy remains." only after."""

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client

from memstore.facts import paths
from memstore.facts.markdown import fact_identity, parse_text
from memstore.facts.paths import Scope
from memstore.models import Fact, Proposal
from memstore.prompt.lessons import lessons_apply, lessons_propose
from memstore.prompt.notes import note_read
from memstore.registry.bots import bot_create
from memstore.registry.people import editor_add, person_add, person_link
from memstore.registry.tokens import token_create
from memstore.store.selectors import fact_find
from memstore.store.services import fact_remember
from memstore.upkeep.health import health_fix
from memstore.upkeep.proposals import proposal_apply, proposal_record
from tests.helpers import BotClient, remaining, run_command

pytestmark = pytest.mark.django_db(transaction=True)

STATEMENT = "Prefers short standups"  # what alice asked to be remembered, in her own memory
SOURCE = fact_identity(STATEMENT)
COPY = f"alice: {STATEMENT}"  # the copy the "remember that" path keeps in a group
BOT_ADA = "agents/ada/memory/profile.md"
_n = iter(range(1, 10_000))


@dataclass
class World:
    direct: BotClient  # ada talking with alice alone
    team: BotClient  # ada in a group room, alice speaking
    alice: Client
    boss: Client


@pytest.fixture
def world(django_user_model, settings) -> World:
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
    token = token_create(bot="ada").token
    return World(
        direct=BotClient(token=token, room_id="dm-alice", person="alice"),
        team=BotClient(token=token, room_kind="group", room_id="team", person="alice"),
        alice=alice,
        boss=boss,
    )


def report(client: BotClient, message: str) -> dict:
    n = next(_n)
    body = {"message": message, "reply": "Sure.", "message_id": f"m{n}", "reply_id": f"r{n}"}
    answer = client.post("/exchanges", body)
    assert answer.status == 202, answer.body
    return answer.body


def texts_in(memory_root) -> list[str]:
    return [
        line.fact.body
        for path in sorted(memory_root.rglob("*.md"))
        if "/notes/" not in str(path)
        for line in parse_text(path.read_text())
        if line.fact
    ]


def exported(world: World) -> str:
    """The bot's export (its own memory) and alice's (her memory), as one text."""
    bot = Client(HTTP_HOST="localhost").get(
        "/api/v1/export", HTTP_AUTHORIZATION=f"Bearer {world.direct.token}"
    )
    person = world.alice.get("/people/alice/export/")
    assert bot.status_code == 200 and person.status_code == 200
    parts = []
    for content in (bot.content, person.content):
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            parts += [archive.read(name).decode() for name in archive.namelist()]
    return "\n".join(parts)


def seen_anywhere(world: World, memory_root, words: str) -> list[str]:
    """Where a user would still see these words: files, index, recall, prompt, export."""
    where = []
    if any(words.lower() in t.lower() for t in texts_in(memory_root)):
        where.append("files")
    if Fact.objects.filter(text__icontains=words).exists():
        where.append("index")
    for client in (world.direct, world.team):
        found = client.get("/recall", query=words).body["items"]
        if any(words.lower() in f["text"].lower() for f in found):
            where.append(f"recall {client.room_kind}")
        if words.lower() in client.get("/prompt").body["text"].lower():
            where.append(f"prompt {client.room_kind}")
    if words.lower() in exported(world).lower():
        where.append("export")
    return where


# --- the doors ---------------------------------------------------------------------------------


def api_forget(world: World, fact_id: str) -> None:
    answer = world.direct.post("/facts/forget", {"id": fact_id, "erase": True})
    assert answer.status == 200, answer.body


def about_me_forget_everywhere(world: World, fact_id: str) -> None:
    answer = world.alice.post("/people/alice/forget/", {"id": fact_id}, HTTP_HX_REQUEST="true")
    assert "Forgotten everywhere" in answer.content.decode()


def console_erase_as_staff(world: World, fact_id: str) -> None:
    [fact] = [f for f in _facts(fact_id)]
    ref = {"file": fact.file, "id": fact_id}
    answer = world.boss.post("/bots/ada/facts/erase/", ref, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200


def command_erase_person(world: World, fact_id: str) -> None:
    run_command("memory", "erase", "--person", "alice", fact_id, "--by", "alice")


def command_erase_bot(world: World, fact_id: str) -> None:
    run_command("memory", "erase", "--bot", "ada", fact_id, "--by", "ops")


def _facts(fact_id: str):
    return [
        f
        for scope in paths.all_scopes(paths.memory_root())
        for f in fact_find(scopes=[scope], fact_id=fact_id)
    ]


Door = Callable[[World, str], None]
PERSON_DOORS: list[Door] = [
    api_forget,
    about_me_forget_everywhere,
    console_erase_as_staff,
    command_erase_person,
]
BOT_DOORS: list[Door] = [api_forget, console_erase_as_staff, command_erase_bot]
# A merge archives its sources (history only): the console erases lines still in a file.
ARCHIVED_DOORS: list[Door] = [api_forget, command_erase_bot]


def _ids(doors: list[Door]) -> list[str]:
    return [d.__name__ for d in doors]


# --- the "remember that" copy kept with the person's name ---------------------------------------


def remembered_twice(world: World, memory_root) -> None:
    report(world.direct, "Remember that I prefer short standups.")
    report(world.team, "remember that I prefer short standups")
    assert sorted(texts_in(memory_root)) == sorted([COPY, STATEMENT])
    assert "prompt group" in seen_anywhere(world, memory_root, COPY)


@pytest.mark.parametrize("door", PERSON_DOORS, ids=_ids(PERSON_DOORS))
def test_the_copy_kept_with_the_persons_name_is_erased_with_their_statement(
    world, memory_root, door
):
    remembered_twice(world, memory_root)
    before = remaining(SOURCE)
    assert any(COPY_ID in line for line in before), before

    door(world, SOURCE)

    assert texts_in(memory_root) == []
    assert seen_anywhere(world, memory_root, STATEMENT) == []
    assert remaining(SOURCE) == [] and remaining(STATEMENT) == [] and remaining(COPY) == []


COPY_ID = fact_identity(COPY)


def test_the_person_erases_the_copy_in_the_bots_memory_by_its_text(world, memory_root):
    report(world.team, "remember that I prefer short standups")  # no statement of her own
    assert texts_in(memory_root) == [COPY]
    command_erase_person(world, COPY_ID)
    assert texts_in(memory_root) == [] and remaining(COPY) == []


@pytest.mark.parametrize("door", PERSON_DOORS, ids=_ids(PERSON_DOORS))
def test_another_persons_copy_of_the_same_words_is_not_erased_with_theirs(world, memory_root, door):
    remembered_twice(world, memory_root)
    person_add(name="bob")
    person_link(person="bob", bot="ada")
    bob = BotClient(token=world.team.token, room_kind="group", room_id="team", person="bob")
    report(bob, "remember that I prefer short standups")
    door(world, SOURCE)
    assert texts_in(memory_root) == [f"bob: {STATEMENT}"]


def test_verify_forgotten_finds_a_copy_nothing_links_by_its_text(world, memory_root):
    report(world.direct, "Remember that I prefer short standups.")
    # A copy made before copies were linked, or by hand: no from=, no about=.
    fact_remember(shard=Scope("bot", "ada").shard("ada"), text=COPY, tier="profile", via="tool")
    about_me_forget_everywhere(world, SOURCE)
    assert texts_in(memory_root) == [COPY]  # not linked: the erase could not know
    left = remaining(STATEMENT)
    assert {line.split()[0] for line in left} == {"file", "index"}, left
    assert all("not linked" in line for line in left)


# --- merged and superseding lines, proposals, lessons ------------------------------------------


def learned_facts(*texts: str) -> list:
    shard = Scope("bot", "ada").shard("ada")
    return [
        fact_remember(shard=shard, text=t, tier="profile", meta={"via": "learner"}) for t in texts
    ]


@pytest.mark.parametrize("door", ARCHIVED_DOORS, ids=_ids(ARCHIVED_DOORS))
def test_a_merged_line_is_erased_with_a_fact_it_was_made_from(world, memory_root, door):
    first, second = learned_facts("Deploys run on Fridays", "Deploys happen every Friday")
    proposal, _ = proposal_record(
        origin="synthesis", action="merge", bot="ada", evidence=[first, second],
        text="Deploys run every Friday afternoon", reason="Said twice",
    )  # fmt: skip
    assert proposal_apply(proposal=proposal, automatic=True, by="synthesis", via="synthesis")
    assert texts_in(memory_root) == ["Deploys run every Friday afternoon"]
    merged = fact_identity("Deploys run every Friday afternoon")
    assert any(f"fact {merged}" in line for line in remaining(first.fact_id))

    door(world, first.fact_id)

    assert texts_in(memory_root) == []
    assert seen_anywhere(world, memory_root, "Friday afternoon") == []
    assert remaining(first.fact_id) == [] and remaining("Deploys run on Fridays") == []


@pytest.mark.parametrize("door", ARCHIVED_DOORS, ids=_ids(ARCHIVED_DOORS))
def test_the_kept_line_of_a_merge_and_an_open_proposal_go_with_the_fact(world, memory_root, door):
    older, newer, other = learned_facts(
        "The office wifi is Guest5", "The office wifi is Guest-5 now", "Lunch is at noon"
    )
    health_fix(action="merge", fact=older, other=newer, by="alice", via="console")
    proposal, _ = proposal_record(
        origin="synthesis", action="rewrite", bot="ada", evidence=[newer, other],
        text="Wifi Guest-5; lunch at noon", reason="Tidier",
    )  # fmt: skip
    assert remaining(older.fact_id) != []

    door(world, older.fact_id)

    assert texts_in(memory_root) == ["Lunch is at noon"]  # the newer version went with it
    assert seen_anywhere(world, memory_root, "Guest-5") == []
    proposal.refresh_from_db()
    assert (proposal.status, proposal.text) == (Proposal.FAILED, "[erased]")
    assert remaining(older.fact_id) == [] and remaining(newer.fact_id) == []


@pytest.mark.parametrize("door", BOT_DOORS, ids=_ids(BOT_DOORS))
def test_a_lesson_made_from_a_fact_leaves_the_about_me_note(world, memory_root, settings, door):
    settings.AGENT_LESSONS = "propose"
    shard = Scope("bot", "ada").shard("ada")
    said = ["Check the staging logs before a deploy", "Check staging logs before deploys"]
    said.append("Always check the staging logs before deploying")
    facts = [fact_remember(shard=shard, text=t, meta={"type": "learning"}) for t in said]
    proposal = lessons_propose(bot="ada")
    assert lessons_apply(proposal=proposal).status == Proposal.APPLIED
    lesson = note_read(kind="me", name="ada").text
    assert "staging logs" in lesson and "staging logs" in world.direct.get("/prompt").body["text"]
    oldest = facts[0]  # not the wording the note took: linked by the proposal's evidence
    assert any(line.startswith("note") for line in remaining(oldest.fact_id))

    door(world, oldest.fact_id)

    note = note_read(kind="me", name="ada").text
    assert "[erased]" in note and proposal_text(proposal) == "[erased]"
    assert not [line for line in remaining(oldest.fact_id) if line.startswith(("note", "prop"))]


def proposal_text(proposal: Proposal) -> str:
    proposal.refresh_from_db()
    return proposal.text
