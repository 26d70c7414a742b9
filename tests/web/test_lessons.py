"""Lessons for agents (issue 24): off by default; when on, a lesson that recurs in a bot's own
memory becomes a proposed change to its About me note, applied only when someone who may edit
the bot accepts it, and never over a note changed since."""

import pytest
from django.core.management import CommandError, call_command

from memstore.models import Proposal
from memstore.prompt.lessons import lessons_note, lessons_propose, lessons_recurring
from memstore.prompt.notes import note_read, note_save
from memstore.registry.bots import bot_create
from memstore.registry.people import editor_add
from memstore.registry.tokens import token_create
from tests.helpers import BotClient, plain, run_command

pytestmark = pytest.mark.django_db

LESSONS = [
    "Run the migrations before deploying the API",
    "Always run migrations before the API deploy",
    "Deploying the API without running migrations broke staging: run them first",
]


@pytest.fixture
def ava(memory_root, people, settings):
    """ava, whose own memory holds one lesson said three times (through the API) and one once."""
    bot_create(slug="ava")
    api = BotClient(token=token_create(bot="ava", name="t").token, room_kind="group", person="")
    for text in [*LESSONS, "Summaries read better with a decision first"]:
        assert api.post("/facts", {"text": text, "scope": "bot", "type": "learning"}).status == 201
    assert api.post("/facts", {"text": "Deploys go out on Tuesdays", "scope": "bot"}).status == 201
    return api


def test_off_by_default_nothing_is_proposed(ava):
    assert lessons_propose(bot="ava") is None
    with pytest.raises(CommandError, match="AGENT_LESSONS=propose"):
        call_command("upkeep", "ava", "--lessons")
    assert not Proposal.objects.exists()


def test_a_recurring_lesson_is_found_and_a_one_off_is_not(ava):
    [lesson] = lessons_recurring(bot="ava")
    assert lesson.text == LESSONS[-1]  # the newest wording
    assert sorted(f.text for f in lesson.facts) == sorted(LESSONS)


def test_the_note_keeps_what_it_says_and_gains_the_lesson_once(ava):
    lessons = lessons_recurring(bot="ava")
    text, added = lessons_note("I am ava, the ops bot.", lessons)
    assert text == f"I am ava, the ops bot.\n\nLessons learned:\n- {LESSONS[-1]}"
    assert lessons_note(text, lessons) == (text, [])


def test_an_editor_accepts_it_and_the_note_changes_a_reader_cannot(ava, settings, client, people):
    settings.AGENT_LESSONS = "propose"
    note_save(kind="me", name="ava", text="I am ava, the ops bot.")
    out = run_command("upkeep", "ava", "--lessons")
    assert "1 lesson recurred in ava's own memory (3 times)" in out
    assert run_command("upkeep", "ava", "--lessons").count("proposal") == 1  # the same one
    proposal = Proposal.objects.get(origin="lessons")
    assert note_read(kind="me", name="ava").text == "I am ava, the ops bot.\n"  # nothing yet
    # sam reads ava but does not edit it: no Accept offered, and a post is refused.
    client.force_login(people["sam"])
    page = client.get("/bots/ava/proposals/")
    assert (
        "Its About me note would read" in plain(page)
        and ">Accept</button>" not in page.content.decode()
    )
    refused = client.post(
        "/bots/ava/proposals/decide/", {"proposal": proposal.pk, "decision": "accept"}
    )
    assert refused.status_code in (302, 403)
    assert "Lessons learned" not in note_read(kind="me", name="ava").text
    # ann, ava's editor, accepts: the note changes, and the bot's next prompt has it.
    editor_add(username="ann", bot="ava")
    client.force_login(people["ann"])
    client.post("/bots/ava/proposals/decide/", {"proposal": proposal.pk, "decision": "accept"})
    assert note_read(kind="me", name="ava").text == (
        f"I am ava, the ops bot.\n\nLessons learned:\n- {LESSONS[-1]}\n"
    )
    assert f"- {LESSONS[-1]}" in ava.get("/prompt").body["text"]
    assert Proposal.objects.get(pk=proposal.pk).status == "applied"


def test_a_note_changed_since_is_never_overwritten(ava, settings, client, people):
    settings.AGENT_LESSONS = "propose"
    proposal = lessons_propose(bot="ava")
    note_save(kind="me", name="ava", text="Rewritten by staff meanwhile.")
    client.force_login(people["boss"])
    client.post("/bots/ava/proposals/decide/", {"proposal": proposal.pk, "decision": "accept"})
    assert note_read(kind="me", name="ava").text == "Rewritten by staff meanwhile.\n"
    failed = Proposal.objects.get(pk=proposal.pk)
    assert failed.status == "failed" and "changed since this was proposed" in failed.result["error"]
    # The next pass proposes it again, on the note as it reads now.
    again = lessons_propose(bot="ava")
    assert again.pk != proposal.pk and again.text.startswith("Rewritten by staff meanwhile.")


def test_it_waits_in_the_review_inbox_too_where_an_editor_decides(ava, settings, client, people):
    settings.AGENT_LESSONS = "propose"
    proposal = lessons_propose(bot="ava")
    client.force_login(people["sam"])  # a reader: sees it, is offered nothing to press
    page = client.get("/bots/ava/review/").content.decode()
    assert "change ava’s About me note" in page and "Lessons learned:" in page
    assert ">Accept</button>" not in page and "but not decide it" in page
    editor_add(username="ann", bot="ava")
    client.force_login(people["ann"])
    assert 'aria-label="1 waiting"' in client.get("/bots/ava/").content.decode()
    key = f"lessons:{proposal.pk}"
    client.post("/bots/ava/review/decide/", {"key": key, "decision": "accepted"})
    assert note_read(kind="me", name="ava").text == f"Lessons learned:\n- {LESSONS[-1]}\n"
    assert "Nothing waits for review." in plain(client.get("/bots/ava/review/"))


def test_rejecting_it_in_the_inbox_changes_nothing(ava, settings, client, people):
    settings.AGENT_LESSONS = "propose"
    proposal = lessons_propose(bot="ava")
    client.force_login(people["boss"])
    client.post(
        "/bots/ava/review/decide/", {"key": f"lessons:{proposal.pk}", "decision": "rejected"}
    )
    assert note_read(kind="me", name="ava").text == ""
    assert Proposal.objects.get(pk=proposal.pk).status == "rejected"
