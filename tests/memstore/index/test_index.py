"""The index mirrors the files (SPEC §1.2, §5.1): after anything at all, rows == what files say."""

import os
import random
from datetime import date, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from memstore.errors import MemstoreError
from memstore.facts.markdown import parse_text
from memstore.facts.paths import Scope, all_scopes, locate
from memstore.index import index_rebuild, index_sync
from memstore.models import Fact, MemoryFile
from memstore.rules.failures import failures_recent
from memstore.store.selectors import facts_list, folders_misnamed
from memstore.store.services import fact_edit, fact_forget, fact_remember, memory_clear
from tests.helpers import write_memory

pytestmark = pytest.mark.django_db

ADA = Scope("bot", "ada")
ALICE = Scope("user", "alice")
APOLLO = Scope("project", "apollo")
SHARDS = [ADA.shard("ada"), ALICE.shard("ada"), ALICE.shard("bob"), APOLLO.shard("bob")]
WORDS = [
    "tea",
    "coffee",
    "Lisbon",
    "mornings",
    "rooftops",
    "budget",
    "Friday",
    "launch",
    "dark",
    "mode",
    "reports",
]


def facts_in_files(root) -> set[tuple[str, str, str]]:
    """(file, fact id, canonical line) for every fact, read straight from the files."""
    found = set()
    for path in root.rglob("*.md"):
        rel = str(path.relative_to(root))
        if locate(rel) is None:
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        newest: dict[str, object] = {}
        for line in parse_text(text):
            fact = line.fact
            if fact and (fact.identity not in newest or fact.day > newest[fact.identity].day):
                newest[fact.identity] = fact
        found |= {(rel, fid, str(fact)) for fid, fact in newest.items()}
    return found


def facts_in_index() -> set[tuple[str, str, str]]:
    return set(Fact.objects.values_list("file__path", "fact_id", "line"))


def files_on_disk(root) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*.md")
        if locate(str(p.relative_to(root))) is not None
    }


def assert_index_matches(root) -> None:
    index_sync(scopes=all_scopes(root))
    assert facts_in_files(root) == facts_in_index()
    assert files_on_disk(root) == set(MemoryFile.objects.values_list("path", flat=True))


def random_text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))


def hand_edit(rng: random.Random, root) -> None:
    files = sorted(files_on_disk(root))
    if not files:
        return
    path = root / rng.choice(files)
    data = path.read_bytes()
    lines = data.split(b"\n")
    kind = rng.choice(["append", "delete", "rewrite", "same-size", "garbage", "binary", "unlink"])
    day = date(2026, 3, rng.randint(1, 28)).isoformat().encode()
    if kind == "append":
        lines.insert(len(lines) - 1, b"- (" + day + b") " + random_text(rng).encode())
    elif kind == "delete" and len(lines) > 1:
        del lines[rng.randrange(len(lines) - 1)]
    elif kind == "rewrite":
        i = rng.randrange(len(lines))
        lines[i] = b"- (" + day + b") " + random_text(rng).encode() + b" <!-- by=hand -->"
    elif kind == "same-size":
        # Swap two characters without changing size or mtime: only the digest can tell.
        st = os.stat(path)
        flipped = data.replace(b"a", b"o", 1) if b"a" in data else data.replace(b"e", b"i", 1)
        path.write_bytes(flipped)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        return
    elif kind == "garbage":
        lines.insert(
            rng.randrange(len(lines)),
            rng.choice([b"- (2026-02-30) bad date", b"-- (x) junk", b"\x0c\x00 zap", b"# H"]),
        )
    elif kind == "binary":
        lines.insert(0, b"caf\xe9")  # not UTF-8: the file becomes read-only
    elif kind == "unlink":
        path.unlink()
        return
    path.write_bytes(b"\n".join(lines))


def api_write(rng: random.Random, root) -> None:
    shard = rng.choice(SHARDS)
    op = rng.choice(["remember", "remember", "remember", "forget", "edit", "clear"])
    day = date(2026, 3, 1) + timedelta(days=rng.randint(0, 45))
    if op == "remember":
        fact_remember(
            shard=shard,
            text=random_text(rng),
            tier=rng.choice(["log", "log", "profile", "note", "episode"]),
            day=day,
        )
    elif op == "forget":
        fact_forget(shards=[shard], text=random_text(rng))
    elif op == "edit":
        items = facts_list(scopes=[shard.scope], shard_bot=shard.bot).items
        if items:
            fact_edit(shard=shard, fact_id=rng.choice(items).fact_id, text=random_text(rng))
    elif op == "clear" and rng.random() < 0.2:
        memory_clear(bot="ada")


@pytest.mark.parametrize("seed", range(6))
def test_after_any_sequence_the_index_equals_the_files(memory_root, seed):
    rng = random.Random(seed)
    for step in range(70):
        roll = rng.random()
        try:
            if roll < 0.55:
                api_write(rng, memory_root)
            elif roll < 0.9:
                hand_edit(rng, memory_root)
            elif roll < 0.95:
                index_rebuild()
            else:
                folder = memory_root / rng.choice(SHARDS).rel
                for path in sorted(folder.rglob("*.md"), reverse=True):
                    path.unlink()
        except MemstoreError:
            pass  # not found, unreadable file, …: refused, and nothing may have drifted
        if step % 5 == 4 or roll >= 0.9:
            assert_index_matches(memory_root)
    assert_index_matches(memory_root)
    assert facts_in_index(), "the sequence should leave some facts behind"


def test_a_hand_edit_wins_on_the_next_read(memory_root):
    fact_remember(shard=ADA.shard("ada"), text="Likes tea", day=date(2026, 3, 1))
    path = memory_root / "agents/ada/memory/log/2026-03.md"
    st = os.stat(path)
    path.write_text(path.read_text().replace("Likes tea", "Hates tea"))  # same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime
    assert [f.text for f in facts_list(scopes=[ADA]).items] == ["Hates tea"]
    path.write_text("# Emptied by hand\n")
    assert facts_list(scopes=[ADA]).items == []
    path.unlink()
    assert facts_list(scopes=[ADA]).items == []
    assert not MemoryFile.objects.exists()


def test_a_sync_with_nothing_changed_is_one_query(memory_root, django_assert_num_queries):
    for shard in SHARDS:
        for month in (1, 2, 3):
            fact_remember(shard=shard, text=f"Fact {month} {shard.bot}", day=date(2026, month, 1))
            fact_remember(
                shard=shard, text=f"Profile {shard.bot}", tier="profile", day=date(2026, 1, 1)
            )
    _age_files(memory_root)
    scopes = [ADA, ALICE, APOLLO]
    index_sync(scopes=scopes)  # settles files that were just written (see RACY_NS)
    with django_assert_num_queries(1):
        report = index_sync(scopes=scopes)
    assert (report.files, report.changed) == (16, 0)


def test_just_written_files_are_checked_by_content_without_queries(
    memory_root, django_assert_num_queries
):
    fact_remember(shard=ADA.shard("ada"), text="Fresh", day=date(2026, 3, 1))
    assert MemoryFile.objects.get().recheck
    with django_assert_num_queries(1):
        assert index_sync(scopes=[ADA]).changed == 0
    _age_files(memory_root)
    assert index_sync(scopes=[ADA]).changed == 1  # settles: the flag is cleared, no parse
    assert not MemoryFile.objects.get().recheck
    with django_assert_num_queries(1):
        assert index_sync(scopes=[ADA]).changed == 0


def test_rebuild_reads_everything_and_restores_the_indexes(memory_root):
    for i, shard in enumerate(SHARDS):
        fact_remember(shard=shard, text=f"Fact {i}", day=date(2026, 3, 1))
    bad = memory_root / "agents/ada/memory/log/2026-01.md"
    bad.write_bytes(b"- (2026-01-01) caf\xe9\n")
    (memory_root / "agents/ada/memory/log/.2026-03.md.9.ab.tmp").write_text("- (2026-03-01) T\n")
    before = _fact_indexes()
    seen = []
    report = index_rebuild(progress=lambda done, total: seen.append((done, total)), batch=2)
    assert (report.files, report.facts, report.unreadable) == (5, 5, 1)
    assert seen == [(2, 5), (4, 5), (5, 5)]
    assert before == _fact_indexes()
    assert facts_in_files(memory_root) == facts_in_index()
    assert "not valid UTF-8" in MemoryFile.objects.get(path=str(bad.relative_to(memory_root))).error
    assert index_sync(scopes=all_scopes(memory_root)).changed == 0


def _fact_indexes() -> list[str]:
    # Indexes and constraints: the rebuild drops and recreates them around its bulk load.
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'memstore_fact'")
        indexes = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = 'memstore_fact'::regclass"
        )
        return sorted(indexes + [f"{name} {sql}" for name, sql in cursor.fetchall()])


def _age_files(root) -> None:
    # Files written a moment ago are re-checked by content until they are older (RACY_NS).
    old = 1_700_000_000_000_000_000
    for path in root.rglob("*.md"):
        os.utime(path, ns=(old, old))


def test_a_hand_written_line_over_the_save_limit_is_indexed_whole_and_flagged(memory_root):
    long_text = "Notes from the offsite: " + "word " * 140 + "and the decision at the very end"
    assert len(long_text) > 600
    write_memory(memory_root, "agents/ada/memory/profile.md", f"- (2026-03-01) {long_text}")
    [fact] = facts_list(scopes=[ADA]).items
    assert (fact.text, fact.too_long) == (" ".join(long_text.split()), True)
    assert not fact_remember(shard=ADA.shard("ada"), text="Short", day=date(2026, 3, 1)).too_long


def test_a_shard_folder_that_is_not_a_bot_slug_is_reported_not_skipped_silently(memory_root):
    write_memory(memory_root, "users/alice/memory/by-agent/Ada_Bot/profile.md", "- (2026-03-01) X")
    write_memory(memory_root, "users/alice/memory/by-agent/ada/profile.md", "- (2026-03-01) Y")
    out = StringIO()
    call_command("reindex", stdout=out, stderr=StringIO())
    folder = "users/alice/memory/by-agent/Ada_Bot"
    assert f"Not read: {folder}: 'Ada_Bot' is not a bot slug" in out.getvalue()
    assert [f.path for f in folders_misnamed()] == [folder]
    [failure] = failures_recent(root=memory_root)
    assert (failure.op, failure.code, failure.bot) == ("reindex", "invalid_name", "Ada_Bot")
    assert [f.text for f in facts_list(scopes=[Scope("user", "alice")]).items] == ["Y"]
