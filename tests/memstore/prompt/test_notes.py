"""Always-on notes as files: saved with the previous text kept as a version, listed newest
first, restorable, a hand edit winning, the limit and the secret rule, and the pure composer
that puts them in front of the memory blocks within their budget."""

from datetime import UTC, datetime, timedelta

import pytest

from memstore.errors import InvalidName, InvalidNote
from memstore.prompt.notes import (
    QUOTED,
    Note,
    note_as_of,
    note_path,
    note_read,
    note_restore,
    note_save,
    note_versions,
    notes_compose,
    notes_for,
)
from tests.helpers import tree


def test_every_save_keeps_the_text_it_replaces_and_any_version_restores(db, memory_root):
    note_save(kind="you", name="alice", text="Call me Al.")
    note_save(kind="you", name="alice", text="Call me Alice, please.")
    versions = note_versions(kind="you", name="alice")
    assert [v.text for v in versions] == ["Call me Al.\n", ""]
    restored = note_restore(kind="you", name="alice", version=versions[0].id)
    assert restored.text == "Call me Al.\n"
    assert [v.text for v in note_versions(kind="you", name="alice")][
        0
    ] == "Call me Alice, please.\n"
    assert (memory_root / "users/alice/notes/about-you.md").read_text() == "Call me Al.\n"


def test_saving_the_same_text_again_keeps_no_new_version(db):
    note_save(kind="me", name="ada", text="Release bot.")
    note_save(kind="me", name="ada", text="Release bot.  ")
    assert len(note_versions(kind="me", name="ada")) == 1


def test_a_hand_edit_wins_and_is_kept_as_a_version_by_the_next_save(db, memory_root):
    note_save(kind="workspace", text="Acme.")
    (memory_root / note_path("workspace")).write_text("Acme, by hand.\n")
    assert note_read(kind="workspace").text == "Acme, by hand.\n"
    note_save(kind="workspace", text="Acme, saved.")
    assert note_versions(kind="workspace")[0].text == "Acme, by hand.\n"


@pytest.mark.parametrize(
    "text", ["x" * 1501, "my password: hunter2-Secret-99", "token ghp_" + "Ab12" * 9]
)
def test_too_long_or_secret_notes_are_refused_and_nothing_changes(db, memory_root, text):
    note_save(kind="me", name="ada", text="ok")
    before = tree(memory_root)
    with pytest.raises(InvalidNote):
        note_save(kind="me", name="ada", text=text)
    assert tree(memory_root) == before


def test_unknown_versions_and_bad_names_are_refused(db):
    with pytest.raises(InvalidNote):
        note_restore(kind="me", name="ada", version="20261130T000000000000Z")
    with pytest.raises(InvalidNote):
        note_restore(kind="me", name="ada", version="../../etc/passwd")
    with pytest.raises(InvalidName, match="not allowed"):
        note_path("me", "../x")


def test_a_note_as_of_a_time_reads_as_it_did_then(db):
    note_save(kind="me", name="ada", text="First.")
    middle = datetime.now(UTC)
    note_save(kind="me", name="ada", text="Second.")
    assert note_as_of(kind="me", name="ada", when=middle).text == "First.\n"
    assert note_as_of(kind="me", name="ada", when=datetime.now(UTC)).text == "Second.\n"
    long_ago = datetime.now(UTC) - timedelta(days=1)
    assert note_as_of(kind="me", name="ada", when=long_ago).text == ""


def test_about_you_is_only_for_direct_rooms(db):
    note_save(kind="workspace", text="Acme.")
    note_save(kind="you", name="alice", text="Al.")
    direct = notes_for(bot="ada", person="alice", direct=True)
    group = notes_for(bot="ada", person=None, direct=False)
    assert [n.kind for n in direct] == ["workspace", "you"]
    assert [n.kind for n in group] == ["workspace"]


def _note(kind, text, name=""):
    return Note(kind=kind, name=name, text=text, updated=None)


def test_the_composer_keeps_order_and_cuts_past_its_budget():
    notes = [_note("workspace", "Acme."), _note("me", "line one\n" * 50, "ada")]
    text = notes_compose(notes, chars=330)
    assert text.startswith(
        "## Always-on notes\n" + QUOTED + "### About this workspace\n> Acme.\n### About me"
    )
    assert "(the rest of this note is past its budget)" in text
    assert len(text) <= 330 + 1
    assert notes_compose([], chars=200) == ""
