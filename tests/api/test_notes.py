"""Always-on notes through the API: the bot's own "About me" (read, write, versions, limits)
and the notes that open its prompt section in each kind of room."""

from dataclasses import replace

from memstore.prompt.notes import note_path, note_save
from tests.helpers import tree


def test_about_me_is_written_read_and_versioned(bot_a, memory_root):
    assert bot_a.get("/notes/me").body["text"] == ""
    first = bot_a.put("/notes/me", {"text": "I help the Apollo team with releases."})
    assert first.status == 200 and first.body["title"] == "About me"
    bot_a.put("/notes/me", {"text": "I help the Apollo team with releases and on-call."})
    assert (
        bot_a.get("/notes/me").body["text"] == "I help the Apollo team with releases and on-call.\n"
    )
    assert (memory_root / "agents/a/notes/about-me.md").read_text().startswith("I help")
    versions = bot_a.get("/notes/me/versions").body
    assert [v["text"] for v in versions] == ["I help the Apollo team with releases.\n", ""]


def test_a_note_over_the_limit_or_with_a_secret_is_refused_and_nothing_changes(bot_a, memory_root):
    bot_a.put("/notes/me", {"text": "short"})
    before = tree(memory_root)
    long = bot_a.put("/notes/me", {"text": "x" * 1501})
    assert (long.status, long.body["code"]) == (422, "invalid_note")
    assert "1,500" in long.body["message"] and long.body["detail"]["length"] == 1501
    secret = bot_a.put("/notes/me", {"text": "deploy key: ghp_" + "a1B2" * 9})
    assert (secret.status, secret.body["code"]) == (422, "invalid_note")
    assert tree(memory_root) == before
    assert bot_a.put("/notes/me", {"text": "y" * 1500}).status == 200


def test_a_stale_editor_gets_a_conflict_with_the_current_text(bot_a, memory_root):
    bot_a.put("/notes/me", {"text": "one"})
    (memory_root / "agents/a/notes/about-me.md").write_text("hand edited\n")  # a hand edit wins
    answer = bot_a.put("/notes/me", {"text": "two", "expected_text": "one"})
    assert answer.status == 409 and answer.body["detail"]["current"] == "hand edited\n"
    assert bot_a.get("/notes/me").body["text"] == "hand edited\n"


def test_notes_open_the_prompt_and_about_you_stays_in_direct_rooms(bot_a, db):
    note_save(kind="workspace", text="We are Acme; times are UTC.")
    note_save(kind="you", name="alice", text="Call me Al.")
    bot_a.put("/notes/me", {"text": "I am the release bot."})
    direct = bot_a.get("/prompt").body
    assert [n["kind"] for n in direct["notes"]] == ["workspace", "me", "you"]
    text = direct["text"]
    assert (
        text.index("We are Acme")
        < text.index("I am the release bot")
        < text.index("Call me Al")
        < text.index("## Memory")
    )
    group = replace(bot_a, room_id="g1", room_kind="group", person="").get("/prompt").body
    assert [n["kind"] for n in group["notes"]] == ["workspace", "me"]
    assert "Call me Al" not in group["text"]
    listed = replace(bot_a, room_id="g1", room_kind="group", person="").get("/notes").body
    assert [n["kind"] for n in listed] == ["workspace", "me"]


def test_a_hand_edited_note_is_what_the_prompt_uses(bot_a, memory_root):
    path = memory_root / note_path("workspace")
    path.parent.mkdir(parents=True)
    path.write_text("Edited by hand in vim.\n")
    assert "Edited by hand in vim." in bot_a.get("/prompt").body["text"]
