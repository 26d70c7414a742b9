"""History read back for people: tail reads, paging by offset, last writer, one change by offset."""

import json

import pytest

from memstore.facts import activity
from memstore.facts.activity import (
    change_at,
    changes_recent,
    fact_writers,
    lines_backwards,
    shard_history_page,
)
from memstore.facts.history import Change, history_append, history_path
from memstore.facts.paths import Scope

AVA = Scope("bot", "ava").shard("ava")
BEN = Scope("bot", "ben").shard("ben")


def _changes(n: int, shard=AVA, op="add") -> list[Change]:
    return [
        Change(
            op=op,
            file=f"{shard.rel}/profile.md",
            fact_id=f"{i:016x}",
            line=f"- (2026-01-01) fact {i}",
            by="ava",
            via="tool",
            at=f"2026-01-01T00:00:{i:02d}.000000+00:00",
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("chunk", [7, 64, 65536])
def test_lines_backwards_reads_every_line_last_first(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(activity, "_CHUNK", chunk)
    lines = [f"line {i} " + "x" * (i * 3) for i in range(40)]
    path = tmp_path / "f"
    path.write_bytes(("\n".join(lines) + "\n").encode())
    got = list(lines_backwards(path, None))
    assert [line.decode() for _, line in got] == lines[::-1]
    data = path.read_bytes()
    assert all(data[o : o + len(line)] == line for o, line in got)
    middle = got[10][0]
    assert [line.decode() for _, line in lines_backwards(path, middle)] == lines[::-1][11:]


def test_lines_backwards_of_missing_file_is_empty(tmp_path):
    assert list(lines_backwards(tmp_path / "missing", None)) == []


def test_history_pages_newest_first_and_change_at_offset(memory_root):
    history_append(memory_root, AVA, _changes(7))
    first = shard_history_page(root=memory_root, shard=AVA, limit=3)
    assert [i.change.line[-1] for i in first.items] == ["6", "5", "4"]
    second = shard_history_page(root=memory_root, shard=AVA, limit=3, before=first.before)
    rest = shard_history_page(root=memory_root, shard=AVA, limit=3, before=second.before)
    assert [i.change.line[-1] for i in second.items + rest.items] == ["3", "2", "1", "0"]
    assert rest.before is None
    item = second.items[1]
    assert change_at(root=memory_root, shard=AVA, offset=item.offset) == item.change
    assert change_at(root=memory_root, shard=AVA, offset=item.offset + 1) is None


def test_recent_changes_merge_shards_by_time(memory_root):
    history_append(memory_root, AVA, _changes(3))
    history_append(
        memory_root,
        BEN,
        [
            Change(
                op="remove",
                file=f"{BEN.rel}/profile.md",
                fact_id="f",
                line="- (2026-01-01) b",
                at="2026-01-01T00:00:01.500000+00:00",
            )
        ],
    )
    recent = changes_recent(root=memory_root, shards=[AVA, BEN], limit=3)
    assert [(i.shard.bot, i.change.at[17:23]) for i in recent] == [
        ("ava", "02.000"),
        ("ben", "01.500"),
        ("ava", "01.000"),
    ]


def test_fact_writers_follow_appends_and_removals(memory_root):
    history_append(memory_root, AVA, _changes(2))
    assert fact_writers(root=memory_root, shard=AVA)[f"{1:016x}"].via == "tool"
    history_append(
        memory_root,
        AVA,
        [Change(op="edit", file="x", fact_id=f"{1:016x}", line="l", by="ann", via="console")],
    )
    history_append(memory_root, AVA, [Change(op="remove", file="x", fact_id=f"{0:016x}", line="l")])
    writers = fact_writers(root=memory_root, shard=AVA)
    assert (writers[f"{1:016x}"].by, f"{0:016x}" in writers) == ("ann", False)
    with open(history_path(memory_root, AVA), "a") as handle:
        handle.write(json.dumps({"op": "add", "fact_id": "half"}))  # no newline yet
    assert "half" not in fact_writers(root=memory_root, shard=AVA)
