"""What every benchmark shares: workspace setup, timing and output.

Setup: `bench_database(name)` points DATABASE_URL at a kept database of the bench's own on the
same server (DATABASE_URL, or the embedded Postgres under ./var), so cached workspaces survive
between runs; `django_start(memory_root)` sets Django up on it and migrates;
`isolated_workspace(name)` instead makes a throwaway database and MEMORY_ROOT, dropped afterwards.
None of them touches the test database or the one `./dev serve` uses.

Vectors: `vectors_composed` stands fact vectors in for timing runs.

Output: progress via `log` on stderr (stdout stays for results). Timing, CPU, load and the
tables are bench/harness.py's.
"""

import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("VAR_DIR", REPO / "var"))


def log(message: str) -> None:
    """Progress on stderr, so stdout stays for results."""
    print(message, file=sys.stderr, flush=True)


# --- setup -----------------------------------------------------------------------------------


def bench_database(name: str, *, fresh: bool = False) -> str:
    """Point DATABASE_URL at database `name` on the same server (created if missing, dropped
    and recreated first with `fresh`); return it."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import psycopg

    from memoryconsole.config import database_from_url, embedded_database_url

    base = os.environ.get("DATABASE_URL") or embedded_database_url(VAR)
    conf = database_from_url(base)
    params = {
        "host": conf["HOST"],
        "port": conf["PORT"],
        "user": conf["USER"],
        "password": conf["PASSWORD"],
        "dbname": conf["NAME"],
    }
    with psycopg.connect(**{k: v for k, v in params.items() if v}, autocommit=True) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            log(f"creating database {name}")
            conn.execute(f'CREATE DATABASE "{name}"')
    head, _, tail = base.partition("?")
    url = head.rsplit("/", 1)[0] + "/" + name + (f"?{tail}" if tail else "")
    os.environ["DATABASE_URL"] = url
    return url


def django_start(memory_root: Path | None = None, *, migrate: bool = True) -> None:
    """Set Django up (MEMORY_ROOT from the argument when given) and bring the schema up to date."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    if memory_root is not None:
        os.environ["MEMORY_ROOT"] = str(memory_root)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryconsole.settings")
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)


@contextmanager
def isolated_workspace(name: str) -> Iterator[Path]:
    """Set up Django with a throwaway database `name` and an empty MEMORY_ROOT; yield the root."""
    django_start(migrate=False)
    from django.conf import settings
    from django.db import connection

    with tempfile.TemporaryDirectory(prefix=f"{name}-") as folder:
        root = Path(folder) / "memory"
        root.mkdir()
        settings.MEMORY_ROOT = root
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        connection.settings_dict.setdefault("TEST", {})["NAME"] = name
        old_name = connection.settings_dict["NAME"]
        log(f"creating database {name}")
        connection.creation.create_test_db(verbosity=0, autoclobber=True)
        try:
            yield root
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)


def vectors_composed(
    embedder, parts: list[str], *, chunk: int = 20_000, index_after: bool = True
) -> int:
    """Store, for every indexed fact without a vector, the normalised sum of the real vectors
    of the template parts its text contains: a few dozen model runs instead of one per fact
    (an hour for 100,000 on a loaded 2-core box). Cosines to a bench's questions land where real
    ones do, so the relevance floor keeps a realistic number of hits. For timing only, never
    for quality. Stored with binary COPY, `chunk` facts at a time (progress on stderr); returns
    how many vectors it stored."""
    import numpy as np
    from django.db import connection

    table = np.stack([embedder.embed_passages([part])[0] for part in parts]).astype(np.float32)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT ON (f.fact_id) f.fact_id, f.text FROM memstore_fact f "
            "WHERE NOT EXISTS (SELECT 1 FROM memstore_embedding e "
            "WHERE e.model = %s AND e.fact_id = f.fact_id)",
            [embedder.name],
        )
        missing = cursor.fetchall()
    dropped = bool(missing) and ann_index_drop(embedder.name)
    stored = 0
    for start in range(0, len(missing), chunk):
        rows = missing[start : start + chunk]
        hits = np.zeros((len(rows), len(parts)), dtype=np.float32)
        for i, (_, text) in enumerate(rows):
            for j, part in enumerate(parts):
                if part in text:
                    hits[i, j] = 1.0
        keep = hits.any(axis=1)
        vectors = hits[keep] @ table
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        ids = [row[0] for row, kept in zip(rows, keep, strict=True) if kept]
        vectors_copy(embedder.name, ids, vectors)
        stored += len(ids)
        if len(missing) > chunk:
            log(f"  vectors: {start + len(rows):,}/{len(missing):,}")
    if dropped and index_after:
        ann_index_restore(embedder.name)
    return stored


def vectors_copy(model: str, fact_ids: list[str], vectors) -> None:
    """Insert these (new) vectors with one binary COPY: far faster than INSERTs of text
    literals, and pgvector's text parser is skipped too."""
    import struct

    from django.db import connection

    from memstore.recall.vectors import _storage

    dim = vectors.shape[1]
    if _storage() == "vector":  # vector_recv: int16 dim, int16 unused, big-endian float4
        packed, vec_head = vectors.astype(">f4"), struct.pack(">hh", dim, 0)
    else:
        packed, vec_head = vectors.astype("<f4"), b""
    name = model.encode()
    lead = struct.pack(">hi", 4, len(name)) + name
    dim_field = struct.pack(">ii", 4, dim)
    vec_len = struct.pack(">i", len(vec_head) + 4 * dim)
    chunks = [b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)]
    for fact_id, vector in zip(fact_ids, packed, strict=True):
        ident = fact_id.encode()
        chunks.append(lead + struct.pack(">i", len(ident)) + ident + dim_field + vec_len + vec_head)
        chunks.append(vector.tobytes())
    chunks.append(struct.pack(">h", -1))
    sql = "COPY memstore_embedding (model, fact_id, dim, vector) FROM STDIN (FORMAT BINARY)"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        copy.write(b"".join(chunks))


def ann_index_drop(model: str) -> bool:
    """Drop the model's HNSW index (bulk loads through it crawl); True if there was one."""
    from django.db import connection

    from memstore.recall.vectors import ANN_INDEXES

    if model not in ANN_INDEXES:
        return False
    name, _ = ANN_INDEXES[model]
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name])
        if cursor.fetchone() is None:
            return False
        cursor.execute(f'DROP INDEX "{name}"')
    return True


def ann_index_restore(
    model: str, work_mem: str = "4GB", workers: int | None = None
) -> float | None:
    """Create the model's HNSW index as its migration does, if pgvector is there and the index
    is missing; seconds it took (None: nothing to do). Progress on stderr every 30 s. pgvector
    0.6+ builds an HNSW graph in parallel: `workers` maintenance workers beside the leader
    (default: one per core beyond the first, `ANN_BUILD_WORKERS` in the environment overrides)."""
    import importlib
    import threading

    from django.db import connection

    from memstore.recall.vectors import ANN_INDEXES, _storage

    if model not in ANN_INDEXES or _storage() != "vector":
        return None
    name, _ = ANN_INDEXES[model]
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name])
        if cursor.fetchone() is not None:
            return None
    migration = importlib.import_module("memstore.migrations.0008_embedding_one_text_per_run")
    done = threading.Event()

    def watch() -> None:
        while not done.wait(30):
            with connection.cursor() as cursor:  # this thread's own connection
                cursor.execute(
                    "SELECT phase, blocks_done, blocks_total, tuples_done "
                    "FROM pg_stat_progress_create_index"
                )
                for phase, blocks, total, tuples in cursor.fetchall():
                    log(f"  {name}: {phase}, blocks {blocks:,}/{total:,}, tuples {tuples:,}")
        connection.close()

    if workers is None:
        workers = int(os.environ.get("ANN_BUILD_WORKERS", max(0, (os.cpu_count() or 1) - 1)))
    log(f"creating {name} (HNSW; maintenance_work_mem {work_mem}, {workers} parallel workers)")
    watcher = threading.Thread(target=watch, daemon=True)
    started = time.perf_counter()
    watcher.start()
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"SET maintenance_work_mem = '{work_mem}'")
            cursor.execute(f"SET max_parallel_maintenance_workers = {int(workers)}")
            cursor.execute(migration._INDEX.format(name=name, model=model))
            cursor.execute("RESET maintenance_work_mem")
            cursor.execute("RESET max_parallel_maintenance_workers")
    finally:
        done.set()
        watcher.join()
    return time.perf_counter() - started
