"""Console editors (issue 10): people who are not staff read every bot's memory, but edit,
delete, restore or clear a bot only if staff made them its editor; the people page is staff's."""

import re
from datetime import date

import pytest

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.models import Person, PersonLink, RoomBinding
from memstore.registry.people import editor_add, person_add
from memstore.rooms.tickets import room_bind
from memstore.store.services import fact_forget
from tests.helpers import HX, plain, synced, texts, texts_on_disk

pytestmark = pytest.mark.django_db

PROFILE = "agents/ava/memory/profile.md"
PLANS = "Plans offsites and budgets for the Lisbon team"
REF = {"file": PROFILE, "id": fact_identity(PLANS)}


@pytest.fixture
def sam(client, people, workspace):
    """sam logged in: not staff, editor of ben only."""
    editor_add(username="sam", bot="ben")
    client.force_login(people["sam"])
    return client


def _writes(client, workspace):
    # Every console change of ava's memory: edit, delete, undo, restore, clear.
    history = (workspace / "agents/ava/memory/history.jsonl").read_bytes()
    offset = history.rfind(b"\n", 0, len(history) - 1) + 1
    return {
        "edit": client.post(
            "/bots/ava/facts/edit/", REF | {"expected": PLANS, "text": "Mine"}, **HX
        ),
        "delete": client.post("/bots/ava/facts/delete/", REF, **HX),
        "undo": client.post("/bots/ava/facts/undo/", REF, **HX),
        "restore": client.post(
            "/bots/ava/history/restore/",
            {"shard": "bot:ava|ava", "offset": offset},
            **HX,
        ),
        "clear": client.post("/bots/ava/clear/"),
    }


def test_a_reader_sees_memory_without_edit_controls(sam, workspace):
    page = sam.get("/bots/ava/")
    assert page.status_code == 200 and PLANS in texts(page)
    html = page.content.decode()
    assert "/bots/ava/facts/edit/" not in html and ">Delete</button>" not in html
    assert "Clear all of" not in html
    assert ">Restore</button>" not in sam.get("/bots/ava/history/").content.decode()
    # On a bot sam edits, the controls are there.
    ben = sam.get("/bots/ben/").content.decode()
    assert "/bots/ben/facts/edit/" in ben and ">Delete</button>" in ben


def test_a_reader_is_offered_only_what_they_may_do(sam, workspace):
    """No "Add a fact", no bulk delete, no picking boxes, and a clear page with nothing to press
    but Back: every one of those saves would be a 403 that loses what was typed."""
    html = sam.get("/bots/ava/").content.decode()
    assert "/bots/ava/facts/add/" not in html and "Add a fact" not in html
    assert "Delete selected" not in html and 'class="pick"' not in html
    clear = sam.get("/bots/ava/clear/")
    assert clear.status_code == 200
    text = plain(clear)
    assert (
        "Remove 5 facts" not in text and "<button" not in clear.content.decode().split("clear-h")[1]
    )
    assert "You can read ava’s memory but not clear it" in text
    # Where sam is an editor, they are all there.
    ben = sam.get("/bots/ben/").content.decode()
    assert "/bots/ben/facts/add/" in ben and "Delete selected" in ben
    assert "Remove 1 fact" in plain(sam.get("/bots/ben/clear/"))


def test_a_person_adds_a_fact_about_themselves_from_about_me(sam, workspace):
    from memstore.registry.bots import bot_create
    from memstore.registry.people import person_link
    from memstore.registry.tokens import token_create
    from tests.helpers import BotClient

    bot_create(slug="ava")
    person_add(name="sam", username="sam")
    person_link(person="sam", bot="ava")
    page = sam.get("/me/").content.decode()
    assert "Add a fact about yourself" in page and "<option>ava</option>" in page
    saved = sam.post("/people/sam/add/", {"text": "Prefers aisle seats", "bot": "ava"})
    assert saved.status_code == 302
    lines = (workspace / "users/sam/memory/by-agent/ava/profile.md").read_text()
    today = date.today().isoformat()
    assert f"- ({today}) Prefers aisle seats <!-- by=sam via=console -->\n" in lines
    history = (workspace / "users/sam/memory/by-agent/ava/history.jsonl").read_text()
    assert '"by": "sam"' in history and '"via": "console"' in history
    # ava's next call for sam has it.
    api = BotClient(token=token_create(bot="ava", name="t").token, person="sam")
    assert "Prefers aisle seats" in api.get("/prompt").body["text"]
    # A refusal keeps what was typed and says why; a bot that does not know sam is refused.
    refused = sam.post("/people/sam/add/", {"text": "My password is hunter2-hunter2", "bot": "ava"})
    assert refused.status_code == 422
    assert "secrets are never saved" in plain(refused)
    assert "My password is hunter2-hunter2</textarea>" in refused.content.decode()
    assert sam.post("/people/sam/add/", {"text": "Likes tea", "bot": "zed"}).status_code == 403
    assert sam.post("/people/ann/add/", {"text": "Likes tea", "bot": "ava"}).status_code == 403
    assert "Likes tea" not in str(texts_on_disk(workspace))


def test_a_readers_changes_are_refused_with_403_and_change_nothing(sam, workspace):
    # A removal staff made, so an undo and a restore have something to put back.
    fact_forget(shards=[Scope("bot", "ava").shard("ava")], fact_id=REF["id"], by="boss")
    before = synced(workspace)
    answers = _writes(sam, workspace)
    assert {op: r.status_code for op, r in answers.items()} == dict.fromkeys(answers, 403)
    for response in answers.values():
        assert response["X-Console-Error"] == "forbidden"
        assert "staff can make you one of its editors" in plain(response)
    assert synced(workspace) == before


def test_an_editor_and_staff_may_change_the_bot(client, people, workspace):
    editor_add(username="sam", bot="ava")
    client.force_login(people["sam"])
    assert client.post("/bots/ava/facts/delete/", REF, **HX).status_code == 200
    assert PLANS not in (workspace / PROFILE).read_text()
    client.force_login(people["boss"])
    assert client.post("/bots/ava/facts/undo/", REF, **HX).status_code == 200
    assert PLANS in (workspace / PROFILE).read_text()


def test_the_people_page_is_for_staff(sam, workspace):
    assert sam.get("/people/").status_code == 403
    refused = sam.post("/people/", {"action": "add", "person": "Zed"})
    assert refused.status_code == 403 and not Person.objects.exists()
    assert "/people/" not in sam.get("/").content.decode()  # no link to it either


def test_staff_register_link_make_editors_and_reset_rooms(boss, workspace):
    from memstore.registry.bots import bot_create

    bot_create(slug="ava")
    assert 'href="/people/"' in boss.get("/").content.decode()
    for change in (
        {"action": "add", "person": "Sam", "user": "sam"},
        {"action": "link", "person": "sam", "bot": "ava"},
        {"action": "editor", "user": "ann", "bot": "ava"},
    ):
        assert boss.post("/people/", change).status_code == 302
    assert list(PersonLink.objects.values_list("person__name", "bot__slug")) == [("Sam", "ava")]
    room_bind(room_id="dm-1", kind="direct", person="Sam", bot="ava")
    page = re.sub(r">\s+<", "><", boss.get("/people/").content.decode())
    assert '<th scope="row"><a href="/people/Sam/">Sam</a>' in page  # their About me page
    assert '<a class="small" href="/people/Sam/prompts/"' in page  # and what reaches prompts
    assert '</th><td data-label="Console account">sam</td>' in page
    for link in ("/people/Sam/", "/people/Sam/prompts/"):
        assert boss.get(link).status_code == 200
    assert 'name="bot" value="ava">ava <button class="small danger-text" aria-label="Unlink' in page
    assert 'name="user" value="ann"><input type="hidden" name="bot" value="ava">ann <button' in page
    assert '<th scope="row">dm-1</th><td data-label="Kind">direct</td>' in page
    # A second spelling is the same person: refused, and said so.
    again = boss.post("/people/", {"action": "add", "person": "SAM"})
    assert again.status_code == 422 and "already registered" in plain(again)
    assert boss.post("/people/", {"action": "reset-room", "room": "dm-1"}).status_code == 302
    assert not RoomBinding.objects.exists()
    assert (
        boss.post("/people/", {"action": "unlink", "person": "SAM", "bot": "ava"}).status_code
        == 302
    )
    assert not PersonLink.objects.exists()


def test_a_console_account_reads_its_own_memory_under_its_registered_name(
    client, people, workspace
):
    # sam's account is tied to the person "Sam"; user memory lives under users/Sam.
    person_add(name="Sam", username="sam")
    (workspace / "users/sam").rename(workspace / "users/Sam")
    client.force_login(people["sam"])
    page = client.get("/bots/ava/?tab=people")
    assert "Sam is vegetarian" in texts(page)


def test_a_reader_can_not_restore_a_version(sam, workspace):
    from memstore.store.services import fact_edit

    fact_edit(
        shard=Scope("bot", "ava").shard("ava"), fact_id=REF["id"], text="Plans less", by="boss"
    )
    ref = {"file": PROFILE, "id": fact_identity("Plans less")}
    page = sam.get("/bots/ava/versions/", ref).content.decode()
    assert PLANS in page and "Restore this version" not in page
    at = re.search(r'<time datetime="([^"]+)"', page).group(1)
    refused = sam.post("/bots/ava/versions/restore/", ref | {"at": at})
    assert refused.status_code == 403
    assert "Plans less" in (workspace / PROFILE).read_text()
