"""write_atomic never overwrites a hand edit, whichever way the editor saves and whenever it
lands, and a killed writer's temp files are swept by the next write to that folder."""

import os
import subprocess
import sys
import threading
import time

import pytest

from memstore.facts import exchange, files
from memstore.facts.files import ChangedOnDisk, read_snapshot, temps_sweep, write_atomic

needs_exchange = pytest.mark.skipif(exchange._RENAMEAT2 is None, reason="no renameat2 here")


@pytest.fixture
def memo(tmp_path):
    path = tmp_path / "log" / "2026-03.md"
    path.parent.mkdir()
    path.write_text("# Memory\n- (2026-03-01) First\n")
    return path


def test_a_write_replaces_the_file_and_leaves_no_temp(memo):
    before = read_snapshot(memo)
    write_atomic(memo, before.text + "- (2026-03-01) Second\n", expected=before.signature)
    assert memo.read_text() == "# Memory\n- (2026-03-01) First\n- (2026-03-01) Second\n"
    assert sorted(p.name for p in memo.parent.iterdir()) == ["2026-03.md"]


def test_a_new_file_never_replaces_one_created_meanwhile(memo):
    fresh = memo.with_name("2026-04.md")
    fresh.write_text("by hand\n")
    with pytest.raises(ChangedOnDisk):
        write_atomic(fresh, "ours\n", expected=None)
    assert fresh.read_text() == "by hand\n"


def test_an_edit_saved_in_place_after_the_read_is_kept(memo):
    before = read_snapshot(memo)
    with open(memo, "r+b") as handle:
        handle.seek(0, os.SEEK_END)
        handle.write(b"- (2026-03-01) Typed in place\n")
    with pytest.raises(ChangedOnDisk):
        write_atomic(memo, before.text + "- (2026-03-01) Ours\n", expected=before.signature)
    assert memo.read_text().endswith("Typed in place\n")


def test_an_editor_holding_the_file_open_to_write_is_waited_for(memo):
    before = read_snapshot(memo)
    with open(memo, "r+b"), pytest.raises(ChangedOnDisk):  # open, not yet written
        write_atomic(memo, before.text + "- (2026-03-01) Ours\n", expected=before.signature)
    assert before.text == memo.read_text()


@needs_exchange
def test_a_file_renamed_over_the_original_just_before_the_exchange_is_put_back(memo, monkeypatch):
    before = read_snapshot(memo)
    real = exchange.exchange
    calls = []

    def editor_saves_first(a, b):
        if not calls:  # between our last check and our exchange
            side = memo.with_name("2026-03.md.edit~")
            side.write_text(before.text + "- (2026-03-01) Saved by hand\n")
            os.replace(side, memo)
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(exchange, "exchange", editor_saves_first)
    with pytest.raises(ChangedOnDisk):
        write_atomic(memo, before.text + "- (2026-03-01) Ours\n", expected=before.signature)
    assert before.text + "- (2026-03-01) Saved by hand\n" == memo.read_text()
    assert len(calls) == 2  # exchanged in, then back
    assert sorted(p.name for p in memo.parent.iterdir()) == ["2026-03.md"]


@needs_exchange
def test_an_editor_opening_the_file_during_the_exchange_writes_into_the_file_in_place(
    memo, monkeypatch
):
    before = read_snapshot(memo)
    real = exchange.exchange
    opened = threading.Event()

    def editor():
        with open(memo, "r+b") as handle:  # waits for our lease, then gets the original
            opened.set()
            handle.seek(0, os.SEEK_END)
            handle.write(b"- (2026-03-01) Typed in place\n")

    thread = threading.Thread(target=editor)

    def editor_opens_first(a, b):
        if not thread.is_alive() and not opened.is_set():
            thread.start()
            time.sleep(0.05)  # the editor's open is now waiting on our lease
        return real(a, b)

    monkeypatch.setattr(exchange, "exchange", editor_opens_first)
    with pytest.raises(ChangedOnDisk):
        write_atomic(memo, before.text + "- (2026-03-01) Ours\n", expected=before.signature)
    thread.join(5)
    assert before.text + "- (2026-03-01) Typed in place\n" == memo.read_text()


def test_without_the_exchange_the_old_check_then_rename_still_works(memo, monkeypatch):
    monkeypatch.setattr(exchange, "_RENAMEAT2", None)
    before = read_snapshot(memo)
    memo.write_text(before.text + "- (2026-03-01) By hand\n")
    with pytest.raises(ChangedOnDisk):
        write_atomic(memo, before.text + "- (2026-03-01) Ours\n", expected=before.signature)
    again = read_snapshot(memo)
    write_atomic(memo, again.text + "- (2026-03-01) Ours\n", expected=again.signature)
    assert memo.read_text().endswith("By hand\n- (2026-03-01) Ours\n")


def test_temp_files_of_dead_or_long_gone_writers_are_swept_by_the_next_write(memo):
    folder = memo.parent
    dead = _dead_pid()
    names = {
        "dead": f".2026-03.md.{files._HOST}-{dead}.0badc0de.tmp",
        "alive": f".2026-03.md.{files._HOST}-{os.getpid()}.1badc0de.tmp",
        "old_other_host": f".2026-03.md.abcdef-{os.getpid()}.2badc0de.tmp",
        "new_other_host": f".2026-03.md.abcdef-{dead}.3badc0de.tmp",
        "older_scheme": f".2026-03.md.{dead}.4badc0de.tmp",
        "not_ours": "notes.tmp",
    }
    for name in names.values():
        (folder / name).write_text("half a write")
    stale = time.time() - files.STALE_TEMP_SECONDS - 5
    for key in ("old_other_host", "older_scheme"):
        os.utime(folder / names[key], (stale, stale))
    before = read_snapshot(memo)
    write_atomic(memo, before.text + "- (2026-03-01) Next\n", expected=before.signature)
    left = sorted(p.name for p in folder.iterdir())
    assert sorted(["2026-03.md", names["alive"], names["new_other_host"], "notes.tmp"]) == left
    assert temps_sweep(folder) == 0


def _dead_pid() -> int:
    # A process that has exited and been reaped: its pid is free (not fork(): the test
    # process has threads by now, and forking it is unsafe).
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid
