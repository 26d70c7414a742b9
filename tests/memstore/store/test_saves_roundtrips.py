"""A save in a scope whose index is in step with its files: three statements (the lock with
everything the write reads, `memstore/store/prewrite.py`; the file's index rows in one,
`memstore/index/written.py`; the unlock), rows equal to what a rebuild makes of the files, and an
answer only once the file is durable. When the index is behind a file, the save syncs first
and the hand edit is in history as before."""

import contextlib
import os
import shutil
import time
from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, connections
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.errors import FactNotFound, TopicExcluded
from memstore.facts import files, markdown
from memstore.facts.history import history_read
from memstore.facts.locks import _key, bot_lock
from memstore.facts.paths import Scope
from memstore.index import index_rebuild, index_sync
from memstore.models import Fact, Link, MemoryFile
from memstore.registry.people import person_add
from memstore.rules.controls import topic_exclude
from memstore.store.selectors import facts_list
from memstore.store.services import fact_edit, fact_forget, fact_remember
from tests.helpers import log, texts_on_disk

ADA = Scope("bot", "ada").shard("ada")
MARCH = "agents/ada/memory/log/2026-03.md"


@pytest.fixture
def big(memory_root):
    for month in ("2026-01", "2026-02", "2026-03"):
        log(
            memory_root,
            "bot",
            "ada",
            month,
            *(f"- ({month}-01) {month} fact {i}" for i in range(200)),
        )
    index_sync(scopes=[ADA.scope])
    return memory_root


@pytest.mark.django_db(transaction=True)  # autocommit, as a server runs: BEGIN/COMMIT would show
def test_a_remember_an_edit_and_a_forget_send_three_statements_each(big):
    with CaptureQueriesContext(connection) as remembered:
        saved = fact_remember(shard=ADA, text="Booked the hall", day=date(2026, 3, 9))
    with CaptureQueriesContext(connection) as edited:
        changed = fact_edit(shard=ADA, fact_id=saved.fact_id, text="Booked the big hall")
    after_edit = facts_list(scopes=[ADA.scope], contains="hall").items
    with CaptureQueriesContext(connection) as forgotten:
        fact_forget(shards=[ADA], fact_id=changed.fact_id)
    for queries in (remembered, edited, forgotten):
        sql = [q["sql"] for q in queries]
        assert len(sql) == 3, sql
        assert sql[0].startswith("SELECT pg_advisory_lock(")
        assert sql[1].startswith("WITH g AS (")
        assert sql[2].startswith("SELECT pg_advisory_unlock(")
    assert [(f.text, f.file) for f in after_edit] == [("Booked the big hall", MARCH)]
    assert facts_list(scopes=[ADA.scope], contains="hall").total == 0
    assert not any("hall" in t for ts in texts_on_disk(big).values() for t in ts)
    assert [(c.op, c.via) for c in history_read(big, ADA)[600:]] == [
        ("add", "api"),
        ("edit", "console"),
        ("remove", "api"),
    ]


@pytest.mark.django_db
def test_a_duplicate_written_by_hand_elsewhere_in_the_scope_is_found(big):
    seen = len(history_read(big, ADA))  # the files written by hand for the test
    other = big / "agents/ada/memory/log/2026-01.md"
    other.write_text(other.read_text() + "- (2026-01-05) Prefers aisle seats\n")  # not synced
    with CaptureQueriesContext(connection) as queries:
        held = fact_remember(shard=ADA, text="prefers  AISLE seats", day=date(2026, 3, 9))
    assert (held.existed, held.file) == (True, "agents/ada/memory/log/2026-01.md")
    assert len(queries) > 3  # the index was behind: the save synced the scope first
    assert [(c.op, c.via, c.line) for c in history_read(big, ADA)[seen:]] == [
        ("add", "hand-edit", "- (2026-01-05) Prefers aisle seats")
    ]
    assert "aisle" not in (big / MARCH).read_text()


@pytest.mark.django_db
def test_a_touched_file_takes_its_new_stat_with_the_next_save(big):
    seen = len(history_read(big, ADA))
    january = big / "agents/ada/memory/log/2026-01.md"
    os.utime(january, ns=(time.time_ns(), time.time_ns() - 10**10))  # same bytes, a new stat
    with CaptureQueriesContext(connection) as queries:
        fact_remember(shard=ADA, text="Booked the hall", day=date(2026, 3, 9))
    assert len(queries) == 3
    st = january.stat()
    row = MemoryFile.objects.get(path="agents/ada/memory/log/2026-01.md")
    assert (row.mtime_ns, row.size, row.inode, row.recheck) == (
        st.st_mtime_ns,
        st.st_size,
        st.st_ino,
        False,
    )
    assert index_sync(scopes=[ADA.scope]).changed == 0
    assert history_read(big, ADA)[-1].via == "api"  # no hand edit recorded for a touch
    assert len(history_read(big, ADA)) == seen + 1


@pytest.mark.django_db
def test_the_controls_read_with_the_lock_still_refuse(big):
    get_user_model().objects.create_user("alice")
    person_add(name="alice")
    topic_exclude(person="alice", topic="bonus", by="alice", via="console")
    with pytest.raises(TopicExcluded):
        fact_remember(shard=ADA, text="Her bonus is going up", person="alice")
    saved = fact_remember(shard=ADA, text="Her desk moved", person="alice")
    with pytest.raises(TopicExcluded):
        fact_edit(shard=ADA, fact_id=saved.fact_id, text="Her bonus moved", person="alice")
    assert texts_on_disk(big)[saved.file][-1] == "Her desk moved"


@pytest.mark.django_db
def test_a_save_answers_only_once_its_folder_is_fsynced(big, monkeypatch):
    real = files._fsync_dir
    done: list[float] = []

    def slow(folder):
        time.sleep(0.3)  # the rename made durable long after the index statement
        real(folder)
        done.append(time.monotonic())

    monkeypatch.setattr(files, "_fsync_dir", slow)
    fact_remember(shard=ADA, text="Booked the hall", day=date(2026, 3, 9))
    answered = time.monotonic()
    assert len(done) == 1 and done[0] <= answered
    assert not list(big.rglob("*.tmp"))


@pytest.mark.django_db
def test_a_folder_fsync_that_fails_fails_the_save(big, monkeypatch):
    def failing(folder):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files, "_fsync_dir", failing)
    with pytest.raises(OSError):
        fact_remember(shard=ADA, text="Booked the hall", day=date(2026, 3, 9))
    monkeypatch.undo()
    # What did reach the disk is consistent: file, history and index agree.
    assert "Booked the hall" in (big / MARCH).read_text()
    assert [c.line for c in history_read(big, ADA)[600:]] == ["- (2026-03-09) Booked the hall"]
    assert index_sync(scopes=[ADA.scope]).changed == 0
    assert facts_list(scopes=[ADA.scope], contains="hall").total == 1


def lock_free(bot: str) -> bool:
    """Whether another session could take the bot's write lock right now."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [_key("memstore.bot:" + bot)])
            taken = cursor.fetchone()[0]
            if taken:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_key("memstore.bot:" + bot)])
            return taken
    finally:
        other.close()


@pytest.mark.django_db(transaction=True)
def test_a_lock_whose_reading_fails_is_let_go(memory_root):
    with pytest.raises(DatabaseError), bot_lock("ada", reading=("1 / (SELECT 0)", [])):
        pass
    assert lock_free("ada")
    with bot_lock("ada", reading=("%s::int + 1", [41])) as row:
        assert row == (42,)
        assert not lock_free("ada")
        with CaptureQueriesContext(connection) as queries, bot_lock("ada"):
            pass  # nested: this session holds it already
        assert queries.captured_queries == []
        assert not lock_free("ada")
    assert lock_free("ada")


# --- the rows a save writes are the rows a rebuild makes -----------------------------------

TEXTS = ["Likes tea", "Likes green tea", "Owns a bike", "Visits Lisbon", "Plays chess"]


def operations():
    remember = st.tuples(
        st.just("remember"),
        st.sampled_from(TEXTS),
        st.sampled_from(["log", "profile", "note"]),
        st.sampled_from([None, "2026-02-03", "2026-03-04"]),
        st.sampled_from([{}, {"src": "room:1/msg:2"}, {"visibility": "private"}, {"rel": "link"}]),
    )
    edit = st.tuples(st.just("edit"), st.sampled_from(TEXTS), st.sampled_from(TEXTS + ["Bikes"]))
    forget = st.tuples(st.just("forget"), st.sampled_from(TEXTS))
    by_hand = st.tuples(
        st.just("hand"), st.sampled_from(TEXTS), st.sampled_from([MARCH, ADA.rel + "/profile.md"])
    )
    return st.lists(st.one_of(remember, edit, forget, by_hand), min_size=1, max_size=7)


def index_rows() -> tuple[set, set, set]:
    facts = set(
        Fact.objects.values_list(
            "file__path", "fact_id", "day", "text", "line", "tier", "weight", "rank", "visibility"
        )
    )
    counts = set(MemoryFile.objects.values_list("path", "fact_count", "digest", "error"))
    links = set(Link.objects.values_list("file__path", "source", "kind", "target"))
    return facts, counts, links


@pytest.mark.django_db
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(operations())
def test_the_rows_saves_write_are_the_rows_a_rebuild_makes(memory_root, ops):
    shutil.rmtree(memory_root / "agents", ignore_errors=True)
    index_rebuild()
    log(memory_root, "bot", "ada", "2026-03", "- (2026-03-01) Likes coffee", "prose line")
    index_sync(scopes=[ADA.scope])
    anchor = fact_remember(shard=ADA, text="Anchor fact", day=date(2026, 3, 1)).fact_id
    for op in ops:
        with contextlib.suppress(FactNotFound):  # forgetting or editing a missing fact
            if op[0] == "remember":
                _, text, tier, day, meta = op
                fact_remember(
                    shard=ADA,
                    text=text,
                    tier=tier,
                    day=date.fromisoformat(day) if day else date(2026, 3, 5),
                    meta={"rel": f"related_to:{anchor}"} if "rel" in meta else meta,
                )
            elif op[0] == "edit":
                fact_edit(shard=ADA, fact_id=markdown.fact_identity(op[1]), text=op[2])
            elif op[0] == "forget":
                fact_forget(shards=[ADA], text=op[1])
            elif (path := memory_root / op[2]).exists():  # by hand, not synced
                path.write_text(path.read_text() + f"- (2026-03-07) {op[1]}\n")
                continue
        # After each save, what a rebuild makes. A save that wrote nothing leaves a hand edit
        # to the next read's sync, as it always did; the sync touches only files whose stat
        # is not their row's, so it repairs nothing a save wrote wrong.
        index_sync(scopes=[ADA.scope])
        written = index_rows()
        index_rebuild()
        assert index_rows() == written, op
