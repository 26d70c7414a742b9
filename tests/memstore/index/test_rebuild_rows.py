"""A rebuild's rows are the index's rows, however they are made (issue 25): the rows the
rebuild copies in from text it formats itself, in this process or in worker processes, are
column for column the rows a sync makes through the ORM from the same files; and a rebuild
killed midway leaves the index as it was."""

import os
import signal
import subprocess
import sys

import pytest
from django.db import connection, connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.facts.paths import all_scopes
from memstore.index import index_rebuild, index_sync
from memstore.models import Fact, MemoryFile
from tests.helpers import REPO, database_url, wait_until

FACT_COLUMNS = (
    "f.fact_id, f.day, f.text, f.line, f.meta, f.tier, f.weight, f.rank, f.visibility,"
    " f.scope_key, f.shard_bot, f.position, f.search::text"
)
FILE_COLUMNS = (
    "path, scope_key, shard_bot, tier_file, month, mtime_ns, size, inode, digest, error, fact_count"
)
FILES = [
    "agents/ada/memory/profile.md",
    "agents/ada/memory/log/2026-03.md",
    "users/alice/memory/by-agent/ada/log/2026-02.md",
    "projects/apollo/memory/by-agent/bob/profile.md",
    "server/workspace/memory/by-agent/crm/profile.md",
]


def index_rows() -> tuple[list, list, list]:
    """Every file, fact and link row, by content (ids are the database's, so paths stand in)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {FILE_COLUMNS} FROM memstore_memoryfile ORDER BY path")
        files = cursor.fetchall()
        cursor.execute(
            f"SELECT m.path, {FACT_COLUMNS} FROM memstore_fact f"
            " JOIN memstore_memoryfile m ON m.id = f.file_id ORDER BY m.path, f.fact_id"
        )
        facts = cursor.fetchall()
        cursor.execute(
            "SELECT m.path, l.source, l.kind, l.target, l.scope_key, l.shard_bot"
            " FROM memstore_link l JOIN memstore_memoryfile m ON m.id = l.file_id"
            " ORDER BY 1, 2, 3, 4"
        )
        return files, facts, cursor.fetchall()


def synced_rows() -> tuple[list, list, list]:
    """The rows a sync of every scope makes into an empty index (the ORM's path)."""
    Fact.objects.all().delete()
    MemoryFile.objects.all().delete()
    index_sync(scopes=all_scopes(connection_root()))
    return index_rows()


def connection_root():
    from memstore.facts.paths import memory_root

    return memory_root()


# Fact texts with what COPY's text format must escape (tab, backslash), quotes, non-ASCII,
# tags and metadata (visibility, importance, links, odd values), and lines that are no facts.
_words = st.text(
    alphabet=st.sampled_from(list("ab Zé漢\\\t\"'{}[],;:-🙂<>=")), min_size=1, max_size=30
)
_meta = st.lists(
    st.sampled_from(
        [
            "type=preference",
            "visibility=hidden",
            "visibility=prompt",
            "visibility=nonsense",
            "importance=0.9",
            "importance=x",
            "rel=supersedes:0123456789abcdef",
            "rel=related:fedcba9876543210,bogus",
            'src=room:4\\2/"msg"',
            "weight=2.5",
        ]
    ),
    max_size=3,
)


@st.composite
def fact_lines(draw) -> str:
    body = draw(_words).strip() or "x"
    tag = draw(st.sampled_from(["", "[note] ", "[episode] "]))
    day = draw(st.sampled_from(["2026-03-01", "2026-02-28", "2025-12-31", "2026-13-01"]))
    meta = draw(_meta)
    comment = f" <!-- {' '.join(meta)} -->" if meta else ""
    return f"- ({day}) {tag}{body}{comment}"


_file_text = st.lists(
    st.one_of(fact_lines(), fact_lines(), st.sampled_from(["# Memory", "", "plain prose"])),
    max_size=12,
).map(lambda lines: "\n".join(lines) + "\n")


@pytest.mark.django_db
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=st.lists(_file_text, min_size=len(FILES), max_size=len(FILES)), dup=st.booleans())
def test_rebuilt_rows_are_the_rows_a_sync_makes(memory_root, texts, dup):
    for rel, text in zip(FILES, texts, strict=True):
        path = memory_root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + (text if dup else ""), encoding="utf-8")  # dup: repeated lines
    index_rebuild(workers=0)
    rebuilt = index_rows()
    assert rebuilt == synced_rows()


def varied_tree(root, files: int, pad: str = "") -> None:
    for i in range(files):
        shard = ["agents/ada/memory", "users/alice/memory/by-agent/ada", "agents/bob/memory"][i % 3]
        rel = f"{shard}/log/{2000 + i // 12}-{i % 12 + 1:02d}.md"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            f"- (2026-03-0{1 + k % 9}) Fact {i}.{k}\twith a tab, a \\ and é{pad}"
            + (f" <!-- rel=supersedes:{i:08x}{k:08x} importance=0.{k % 10} -->" if k % 4 else "")
            for k in range(20)
        ]
        path.write_text("# Memory\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    (root / "agents/bob/memory/profile.md").write_bytes(b"- (2026-01-01) caf\xe9 latte\n")


@pytest.mark.django_db
def test_worker_processes_give_the_same_rows_in_the_same_order(memory_root):
    varied_tree(memory_root, 60)
    index_rebuild(workers=0, batch=7)
    here = index_rows()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), min(id) FROM memstore_fact")
        count, first = cursor.fetchone()
        cursor.execute("SELECT id - %s, fact_id FROM memstore_fact ORDER BY id", [first])
        order = cursor.fetchall()
    report = index_rebuild(workers=2, batch=7)
    assert (report.files, report.facts, report.unreadable) == (61, count, 1)
    assert here == index_rows()
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id) FROM memstore_fact")
        first = cursor.fetchone()[0]
        cursor.execute("SELECT id - %s, fact_id FROM memstore_fact ORDER BY id", [first])
        assert order == cursor.fetchall()  # the rows went in in the same order
    assert here == synced_rows()


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_rebuild_killed_midway_leaves_the_index_as_it_was(memory_root):
    # 60,000 facts in 10 MB: over the size from which the rebuild reads on worker processes.
    varied_tree(memory_root, 3000, pad=" and words enough to make a line of memory" * 2)
    settled = 1_700_000_000_000_000_000  # old enough not to be re-checked later (RACY_NS)
    for path in memory_root.rglob("*.md"):
        os.utime(path, ns=(settled, settled))
    index_rebuild()
    before = index_rows()
    for path in list(memory_root.rglob("*.md"))[:50]:
        path.write_text("- (2026-04-01) Written after the first rebuild\n", encoding="utf-8")
    connections.close_all()  # the child opens its own connection
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "PYTHONPATH": str(REPO),
    }
    child = subprocess.Popen(
        [sys.executable, "manage.py", "reindex", "--batch", "100"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its worker processes are in its session
    )
    for line in child.stderr:  # its progress: the first batch of files is in
        if b"/3,001 files" in line:
            break
    assert _rebuild_holds_the_table(), "the rebuild should be midway"
    workers = _in_session(child.pid)
    assert len(workers) >= 2, "the reindex and its worker processes"
    os.kill(child.pid, signal.SIGKILL)  # the reindex alone: its workers see their input end
    child.wait(timeout=30)
    wait_until(lambda: not _in_session(child.pid), timeout=60)
    wait_until(lambda: _sessions_gone(), timeout=60)
    assert before == index_rows()  # nothing of the half-done rebuild is seen
    assert index_sync(scopes=all_scopes(memory_root)).changed == 50  # and it syncs on
    assert Fact.objects.filter(text="Written after the first rebuild").count() == 50


def _rebuild_holds_the_table() -> bool:
    # The rebuild's transaction has emptied the table and holds the TRUNCATE's lock (asking
    # for anything that opens the table would wait for it to commit).
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
            " WHERE c.relname = 'memstore_fact' AND l.mode = 'AccessExclusiveLock'"
            " AND l.granted AND l.pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] > 0


def _in_session(session: int) -> list[int]:
    """The live processes of this session (the reindex's and the workers it started)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[3]) == session and fields[0] != "Z":
                found.append(int(entry))
    return found


def _sessions_gone() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] == 0
