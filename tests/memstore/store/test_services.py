"""Writes (SPEC §4) on real files and the real Postgres index: what a person would see on disk."""

import os
from datetime import UTC, date, datetime

import pytest

from memstore.errors import (
    EditConflict,
    FactNotFound,
    InvalidFact,
    SecretRefused,
    UnreadableFile,
)
from memstore.facts.history import history_read, lines_as_of
from memstore.facts.markdown import HEADER
from memstore.facts.paths import Scope
from memstore.rules.failures import failures_recent
from memstore.store import rewrite
from memstore.store.selectors import facts_list
from memstore.store.services import (
    fact_edit,
    fact_forget,
    fact_remember,
    fact_restore,
    memory_clear,
)
from tests.helpers import tree

pytestmark = pytest.mark.django_db

ADA = Scope("bot", "ada").shard("ada")
ALICE = Scope("user", "alice")
APOLLO = Scope("project", "apollo")
D1, D2 = date(2026, 3, 1), date(2026, 3, 20)
LOG = "agents/ada/memory/log/2026-03.md"


def read(root, rel) -> str:
    return (root / rel).read_bytes().decode("utf-8")


def write(root, rel, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())


def texts(scopes) -> list[str]:
    return sorted(f.text for f in facts_list(scopes=scopes, limit=1000).items)


def test_remember_writes_a_dated_line_under_a_header(memory_root):
    stored = fact_remember(shard=ADA, text="  Likes tea  ", day=D1, meta={"importance": 0.8})
    assert "# Memory log" + HEADER.removeprefix("# Memory") + (
        "- (2026-03-01) Likes tea <!-- importance=0.8 -->\n"
    ) == read(memory_root, LOG)
    assert (
        stored.text,
        stored.tier,
        stored.scope,
        stored.file,
    ) == ("Likes tea", "log", "bot:ada", LOG)
    assert [stored] == facts_list(scopes=[ADA.scope]).items


@pytest.mark.parametrize(
    ("tier", "rel", "text"),
    [
        ("profile", "agents/ada/memory/profile.md", "Is the ops bot"),
        ("log", LOG, "Is the ops bot"),
        ("note", LOG, "[note] Is the ops bot"),
        ("episode", LOG, "[episode] Is the ops bot"),
    ],
)
def test_tiers_go_to_their_files(memory_root, tier, rel, text):
    stored = fact_remember(shard=ADA, text="Is the ops bot", tier=tier, day=D1)
    assert (tier, text) == (stored.tier, stored.text)
    assert f"- (2026-03-01) {text}\n" in read(memory_root, rel)


def test_a_duplicate_writes_nothing_and_answers_with_the_stored_fact(memory_root):
    first = fact_remember(shard=ADA, text="Likes tea", day=D1)
    again = fact_remember(shard=ADA, text="likes   TEA", day=D2)
    assert (first.existed, again.existed) == (False, True)
    assert (again.day, again.text, again.file) == (D1, "Likes tea", LOG)  # what the file holds
    facts = [line for line in read(memory_root, LOG).splitlines() if line.startswith("- (")]
    assert facts == ["- (2026-03-01) Likes tea"]


def test_a_duplicate_in_another_file_or_shard_of_the_scope_is_not_written_again(memory_root):
    fact_remember(shard=ADA, text="Likes tea", tier="profile", day=D1)
    before = tree(memory_root)
    again = fact_remember(shard=ADA, text="Likes tea", day=date(2026, 5, 2))  # another month
    assert again.existed and again.tier == "profile"
    assert before == tree(memory_root)
    fact_remember(shard=ALICE.shard("ada"), text="Prefers mornings", day=D1)
    before = tree(memory_root)
    other = fact_remember(shard=ALICE.shard("bob"), text="prefers mornings", day=D2)
    assert (other.existed, other.shard_bot) == (True, "ada")
    assert before == tree(memory_root)


def test_user_and_project_memory_are_sharded_by_writer(memory_root):
    fact_remember(shard=ALICE.shard("ada"), text="Prefers mornings", day=D1)
    fact_remember(shard=ALICE.shard("bob"), text="Lives in Lisbon", day=D1)
    fact_remember(shard=APOLLO.shard("bob"), tier="profile", text="Ships on Fridays", day=D1)
    assert (memory_root / "users/alice/memory/by-agent/ada/log/2026-03.md").is_file()
    assert (memory_root / "users/alice/memory/by-agent/bob/log/2026-03.md").is_file()
    assert (memory_root / "projects/apollo/memory/by-agent/bob/profile.md").is_file()
    assert texts([ALICE]) == ["Lives in Lisbon", "Prefers mornings"]
    assert texts([APOLLO]) == ["Ships on Fridays"]


def test_forget_by_id_or_by_text_ignoring_case_and_spacing(memory_root):
    tea = fact_remember(shard=ADA, text="Likes tea", day=D1)
    fact_remember(shard=ADA, text="Likes coffee", day=D1)
    fact_remember(shard=ADA, text="Likes juice", tier="note", day=D1)
    assert [c.op for c in fact_forget(shards=[ADA], fact_id=tea.fact_id)] == ["remove"]
    fact_forget(shards=[ADA], text="  LIKES\tcoffee ")
    fact_forget(shards=[ADA], text="likes juice")  # the [note] tag need not be given
    assert texts([ADA.scope]) == []
    assert "Likes" not in read(memory_root, LOG)
    with pytest.raises(FactNotFound):
        fact_forget(shards=[ADA], text="Likes tea")
    with pytest.raises(InvalidFact, match="Say which fact"):
        fact_forget(shards=[ADA], text="  ")


def test_forget_removes_every_copy_the_caller_may_write(memory_root):
    room = Scope("room", "r1")
    shards = [ADA, ALICE.shard("ada"), APOLLO.shard("ada"), room.shard("ada")]
    for shard in shards:
        fact_remember(shard=shard, text="Launch is May 3", day=D1)
    # Copies written by hand (a save of a known fact writes nothing).
    write(memory_root, "agents/ada/memory/profile.md", "- (2026-03-01) Launch is May 3\n")
    write(
        memory_root,
        "projects/apollo/memory/by-agent/bob/log/2026-03.md",
        "- (2026-03-01) Launch is May 3\n",
    )  # not ada's
    removed = fact_forget(shards=shards, text="launch is may 3")
    assert len(removed) == 5
    assert texts([ADA.scope, ALICE, room]) == []
    assert texts([APOLLO]) == ["Launch is May 3"]


def test_edit_replaces_in_place_and_keeps_every_other_byte(memory_root):
    write(memory_root, LOG, "# Mine\r\n- (2026-03-01) Likes tea\r\nprose  \r\n- (2026-03-02) Two")
    [tea] = [f for f in facts_list(scopes=[ADA.scope]).items if f.text == "Likes tea"]
    edited = fact_edit(shard=ADA, fact_id=tea.fact_id, text="Likes green tea")
    assert (
        read(memory_root, LOG)
        == "# Mine\r\n- (2026-03-01) Likes green tea\r\nprose  \r\n- (2026-03-02) Two"
    )
    assert (edited.day, edited.text) == (D1, "Likes green tea")
    assert texts([ADA.scope]) == ["Likes green tea", "Two"]
    [change] = [c for c in history_read(memory_root, ADA) if c.via == "console"]
    assert (
        change.op,
        change.old_line,
        change.line,
    ) == ("edit", "- (2026-03-01) Likes tea", "- (2026-03-01) Likes green tea")


def test_a_persons_edit_makes_a_learned_fact_theirs_a_bots_does_not(memory_root):
    learned = "<!-- src=ex-1 by=ada via=learner -->"
    write(memory_root, LOG, f"- (2026-03-01) Likes tea {learned}\n- (2026-03-02) Two {learned}")
    tea, two = sorted(facts_list(scopes=[ADA.scope]).items, key=lambda f: f.text)
    fact_edit(shard=ADA, fact_id=tea.fact_id, text="Likes green tea", by="ann", via="console")
    fact_edit(shard=ADA, fact_id=two.fact_id, text="Two cats", via="api")
    assert read(memory_root, LOG) == (
        "- (2026-03-01) Likes green tea <!-- src=ex-1 by=ann via=console -->\n"
        f"- (2026-03-02) Two cats {learned}"
    )  # upkeep archives only `via=learner` facts: the person's wording is kept for good


def test_edit_keeps_the_tag_and_reports_conflicts(memory_root):
    note = fact_remember(shard=ADA, text="Likes rooftops", tier="note", day=D1)
    edited = fact_edit(shard=ADA, fact_id=note.fact_id, text="Likes rooftop bars")
    assert "- (2026-03-01) [note] Likes rooftop bars\n" in read(memory_root, LOG)
    assert edited.tier == "note"
    with pytest.raises(FactNotFound):  # the old identity is gone
        fact_edit(shard=ADA, fact_id=note.fact_id, text="x")
    before = read(memory_root, LOG)
    with pytest.raises(EditConflict) as info:
        fact_edit(shard=ADA, fact_id=edited.fact_id, text="y", expected_text="stale text")
    assert info.value.detail["current"] == "[note] Likes rooftop bars"
    with pytest.raises(EditConflict, match="removed"):
        fact_edit(shard=ADA, fact_id=note.fact_id, text="y", expected_text="Likes rooftops")
    with pytest.raises(InvalidFact):
        fact_edit(shard=ADA, fact_id=edited.fact_id, text="two\nlines")
    assert before == read(memory_root, LOG)


def test_restore_puts_a_forgotten_fact_back_with_its_date_and_metadata(memory_root):
    fact_remember(shard=ADA, text="Likes tea", tier="episode", day=D1, meta={"src": "room:1"})
    [change] = fact_forget(shards=[ADA], text="likes tea")
    restored = fact_restore(change=change)
    assert "- (2026-03-01) [episode] Likes tea <!-- src=room:1 -->\n" in read(memory_root, LOG)
    assert (restored.tier, restored.day) == ("episode", D1)


def test_clear_empties_the_bots_own_memory_and_keeps_shared_memory(memory_root):
    write(memory_root, "agents/ada/memory/profile.md", "# Profile\nHand prose\n- (2026-03-01) A\n")
    fact_remember(shard=ADA, text="B", day=D1)
    fact_remember(shard=ADA, text="C", day=date(2026, 4, 1))
    fact_remember(shard=ALICE.shard("ada"), text="Alice likes tea", day=D1)
    fact_remember(shard=APOLLO.shard("ada"), text="Apollo ships Friday", day=D1)
    assert memory_clear(bot="ada") == 3
    assert read(memory_root, "agents/ada/memory/profile.md") == "# Profile\nHand prose\n"
    assert texts([ADA.scope]) == []
    assert texts([ALICE]) == ["Alice likes tea"]
    assert texts([APOLLO]) == ["Apollo ships Friday"]
    assert memory_clear(bot="ada") == 0


@pytest.mark.parametrize(
    "secret",
    [
        "The deploy key is sk-live-abcdefghijklmnopqrstuvwx",
        "password: hunter22",
        "Card 4111 1111 1111 1111",
        "-----BEGIN RSA PRIVATE KEY----- MIIE",
        "token=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ],
)
def test_secrets_are_refused_in_every_scope_and_every_metadata_value(memory_root, secret):
    fact_remember(shard=ALICE.shard("ada"), text="Harmless", day=D1)
    before = tree(memory_root)
    for shard in (ADA, ALICE.shard("ada"), APOLLO.shard("ada")):
        with pytest.raises(SecretRefused, match="never saved to memory"):
            fact_remember(shard=shard, text=secret, day=D1)
    assert before == tree(memory_root)


def test_a_secret_in_a_metadata_value_is_refused(memory_root):
    with pytest.raises(SecretRefused):
        fact_remember(
            shard=ADA, text="Deploys on Fridays", day=D1, meta={"src": "ghp_" + "a1" * 18}
        )
    assert not (memory_root / LOG).exists()


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"text": ""}, InvalidFact),
        ({"text": "x" * 501}, InvalidFact),
        ({"text": "two\nlines"}, InvalidFact),
        ({"text": "x", "tier": "forever"}, InvalidFact),
        ({"text": "x", "meta": {"weight": -1}}, InvalidFact),
    ],
)
def test_refused_writes_change_no_file_byte(memory_root, kwargs, error):
    fact_remember(shard=ADA, text="Existing", day=D1)
    before = tree(memory_root)
    with pytest.raises(error):
        fact_remember(shard=ADA, day=D1, **kwargs)
    assert before == tree(memory_root)


BAD_BYTES = b"# Log\n- (2026-03-01) Caf\xe9 visit\n- (2026-03-02) Still here\n"


def test_a_file_that_is_not_utf8_is_left_alone_but_still_read(memory_root):
    write(memory_root, LOG, BAD_BYTES)
    fact_remember(shard=ADA, text="Elsewhere", tier="profile", day=D1)
    assert texts([ADA.scope]) == ["Caf\ufffd visit", "Elsewhere", "Still here"]
    with pytest.raises(UnreadableFile, match="not valid UTF-8"):
        fact_remember(shard=ADA, text="New", day=D1)
    with pytest.raises(UnreadableFile, match="2026-03.md is not valid UTF-8"):
        fact_forget(shards=[ADA], text="still here")
    still = next(f for f in facts_list(scopes=[ADA.scope]).items if f.text == "Still here")
    with pytest.raises(UnreadableFile):
        fact_edit(shard=ADA, fact_id=still.fact_id, text="Changed")
    fact_forget(shards=[ADA], text="elsewhere")  # other files stay writable
    with pytest.raises(UnreadableFile) as info:
        memory_clear(bot="ada")
    assert info.value.detail == {"files": [LOG], "removed": 0}
    assert (memory_root / LOG).read_bytes() == BAD_BYTES
    assert texts([ADA.scope]) == ["Caf\ufffd visit", "Still here"]


def test_history_records_every_change_including_hand_edits(memory_root):
    tea = fact_remember(shard=ADA, text="Likes tea", day=D1, by="ada", via="tool")
    fact_edit(shard=ADA, fact_id=tea.fact_id, text="Likes green tea", by="alice")
    with open(memory_root / LOG, "a") as handle:
        handle.write("- (2026-03-02) Added by hand\n")
    texts([ADA.scope])  # the read notices the hand edit
    (memory_root / LOG).write_text(read(memory_root, LOG).replace("Added by hand", "Changed"))
    texts([ADA.scope])
    fact_forget(shards=[ADA], text="likes green tea", by="ada")
    (memory_root / LOG).unlink()
    texts([ADA.scope])
    got = [(c.op, c.line, c.by, c.via) for c in history_read(memory_root, ADA)]
    assert got == [
        ("add", "- (2026-03-01) Likes tea <!-- by=ada via=tool -->", "ada", "tool"),
        (
            "edit",
            "- (2026-03-01) Likes green tea <!-- by=alice via=console -->",
            "alice",
            "console",
        ),
        ("add", "- (2026-03-02) Added by hand", "", "hand-edit"),
        ("remove", "- (2026-03-02) Added by hand", "", "hand-edit"),
        ("add", "- (2026-03-02) Changed", "", "hand-edit"),
        ("remove", "- (2026-03-01) Likes green tea <!-- by=alice via=console -->", "ada", "api"),
        ("remove", "- (2026-03-02) Changed", "", "hand-edit"),
    ]


def test_lines_as_of_answers_what_it_knew_then(memory_root):
    fact_remember(shard=ADA, text="Likes tea", day=D1)
    fact_remember(shard=ADA, text="Likes tea", tier="profile", day=D1)
    then = datetime.now(UTC)
    fact_forget(shards=[ADA], text="likes tea")
    fact_remember(shard=ADA, text="Likes coffee", day=D1)
    changes = history_read(memory_root, ADA)
    assert list(lines_as_of(changes, then).values()) == ["- (2026-03-01) Likes tea"]
    assert list(lines_as_of(changes, datetime.now(UTC)).values()) == ["- (2026-03-01) Likes coffee"]
    assert lines_as_of(changes, datetime(2000, 1, 1, tzinfo=UTC)) == {}


def test_a_copy_in_another_file_survives_in_history(memory_root):
    fact_remember(shard=ADA, text="Likes tea", day=D1)
    write(memory_root, "agents/ada/memory/log/2026-04.md", "- (2026-04-01) Likes tea\n")
    (memory_root / LOG).write_text("")  # removed by hand from March only
    texts([ADA.scope])
    known = lines_as_of(history_read(memory_root, ADA), datetime.now(UTC))
    assert list(known.values()) == ["- (2026-04-01) Likes tea"]


def test_a_hand_edit_between_read_and_write_is_kept(memory_root, monkeypatch):
    fact_remember(shard=ADA, text="First", day=D1)
    real_write = rewrite.write_settling
    calls = []

    def edit_by_hand_then_write(path, text, *, expected):
        if not calls:
            # Same size, same mtime: only the content digest can tell.
            st = os.stat(path)
            path.write_text(path.read_text().replace("First", "Fir5t"))
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        calls.append(path)
        return real_write(path, text, expected=expected)

    monkeypatch.setattr(rewrite, "write_settling", edit_by_hand_then_write)
    fact_remember(shard=ADA, text="Second", day=D1)
    assert len(calls) == 2  # the first attempt saw the edit and read again
    assert texts([ADA.scope]) == ["Fir5t", "Second"]
    assert "- (2026-03-01) Fir5t\n- (2026-03-01) Second\n" in read(memory_root, LOG)


def test_a_refusal_is_logged_without_quoting_a_secret(memory_root):
    token = "ghp_" + "a1" * 18
    with pytest.raises(InvalidFact):  # a space is not allowed in a metadata value
        fact_remember(shard=ADA, text="Deploys on Fridays", day=D1, meta={"src": f"{token} x"})
    [failure] = failures_recent(root=memory_root)
    assert (failure.bot, failure.op, failure.code) == ("ada", "remember", "invalid_fact")
    assert token not in (memory_root / "failures.jsonl").read_text()
