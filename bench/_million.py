"""What `bench scale --build` measures on a scale workspace: a million facts rebuilt, their
vectors indexed, and facts re-embedded (issue 25).

Owns: `rebuild_pairs` (the rebuild in one process, the baseline, and on worker processes,
alternately), `hnsw_builds` (pgvector's HNSW index built over the workspace's vectors copied
into a scratch table, each way in turn, with its recall@10 against an exact search) and
`reembed_rates` (facts whose vectors were deleted, embedded again by the backfill the way it
ran before and the way it runs now). Every function returns plain rows for the report.
Does not: build the workspace (`bench._scale.ensure`) or write the docs (`bench.scale`).
"""

import os
import time

from bench._workspace import log
from bench.harness import median

SCRATCH = "bench_hnsw_vectors"
# The index as the migration makes it, and over half-precision copies of the same vectors.
VARIANTS = {
    "vector": (
        "CREATE INDEX {name} ON {table} USING hnsw ((vector::vector(384)) vector_cosine_ops)",
        "vector::vector(384) <=> %s::vector(384)",
    ),
    "halfvec": (
        "CREATE INDEX {name} ON {table} USING hnsw ((vector::halfvec(384)) halfvec_cosine_ops)",
        "vector::halfvec(384) <=> %s::halfvec(384)",
    ),
}


def loads() -> float:
    return os.getloadavg()[0]


def _backend_cpu() -> float:
    """CPU seconds so far of this connection's Postgres backend (it runs the COPY and the
    index builds; their parallel workers are other processes)."""
    from django.db import connection

    from bench.harness import process_stat

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    found = process_stat(pid)
    return found[2] if found else float("nan")


def _wal_mb(since: str | None = None) -> tuple[str, float]:
    """The server's WAL insert position now, and the MB written since `since`."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
        now = cursor.fetchone()[0]
        if since is None:
            return now, 0.0
        cursor.execute("SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)", [now, since])
        return now, float(cursor.fetchone()[0]) / 2**20


def rebuild_pairs(runs: int, workers: int) -> dict:
    """The rebuild's seconds in this process (0 workers, the baseline) and on `workers`
    worker processes, alternately `runs` times each: medians, whole and to the rebuild's
    commit (the index usable; the trigram index builds after it), and the CPU seconds of this
    process, of its workers and of the Postgres backend, and the WAL the server wrote (the
    whole server's, other databases' writes included), in the last run of each way."""
    import resource

    from django.db import connection

    from memstore.index import index_rebuild

    times: dict[int, list[float]] = {0: [], workers: []}
    commits: dict[int, list[float]] = {0: [], workers: []}
    cpu: dict[int, dict[str, float]] = {}
    wal: dict[int, float] = {}
    load = [loads()]
    with connection.cursor() as cursor:
        cursor.execute("SHOW wal_level")
        wal_level = cursor.fetchone()[0]
    for run in range(runs):
        for n in (0, workers):
            here, backend = time.process_time(), _backend_cpu()
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            lsn, _ = _wal_mb()
            phases: dict[str, float] = {}
            started = time.perf_counter()
            report = index_rebuild(
                workers=n,
                on_phase=lambda name, mark=phases.setdefault: mark(name, time.perf_counter()),
            )
            ended = time.perf_counter()
            times[n].append(ended - started)
            commits[n].append(phases.get("indexing partial words", ended) - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[n] = {
                "this process": time.process_time() - here,
                "workers": after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime,
                "Postgres backend": _backend_cpu() - backend,
            }
            wal[n] = _wal_mb(lsn)[1]
            log(
                f"  rebuild run {run + 1}/{runs}, {n} workers: {times[n][-1]:.1f} s (commit "
                f"{commits[n][-1]:.1f} s), CPU {cpu[n]}, WAL {wal[n]:.0f} MB"
            )
    load.append(loads())
    return {
        "facts": report.facts,
        "files": report.files,
        "serial": median(times[0]),
        "parallel": median(times[workers]),
        "serial_commit": median(commits[0]),
        "parallel_commit": median(commits[workers]),
        "serial_all": times[0],
        "parallel_all": times[workers],
        "cpu": {str(n): value for n, value in cpu.items()},
        "wal": {str(n): value for n, value in wal.items()},
        "wal_level": wal_level,
        "workers": workers,
        "load": load,
    }


def _scratch(rows: int) -> int:
    """A scratch table with `rows` of the workspace's vectors (all when fewer); how many."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH}")
        cursor.execute(
            f"CREATE TABLE {SCRATCH} AS SELECT fact_id, vector FROM memstore_embedding"
            " ORDER BY fact_id LIMIT %s",
            [rows],
        )
        cursor.execute(f"SELECT count(*) FROM {SCRATCH}")
        count = cursor.fetchone()[0]
        cursor.execute(f"VACUUM ANALYZE {SCRATCH}")
    return count


def _exact(queries, k: int) -> list[set[str]]:
    """Each query's k nearest fact ids over the scratch table, by an exact float32 scan."""
    import numpy as np
    from django.db import connection

    ids, chunks = [], []
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT fact_id, vector_send(vector) FROM {SCRATCH}")
        for fact_id, raw in cursor.fetchall():
            ids.append(fact_id)
            chunks.append(np.frombuffer(raw, dtype=">f4", count=384, offset=4))
    matrix = np.stack(chunks).astype(np.float32)
    scores = np.stack(queries) @ matrix.T
    top = np.argpartition(-scores, k, axis=1)[:, :k]
    return [{ids[i] for i in row} for row in top]


def _recall(variant: str, queries, truth: list[set[str]], k: int, ef: int) -> float:
    from django.db import connection

    _, distance = VARIANTS[variant]
    found = 0
    with connection.cursor() as cursor:
        cursor.execute(f"SET hnsw.ef_search = {int(ef)}")
        for query, exact in zip(queries, truth, strict=True):
            literal = "[" + ",".join(map(repr, query.tolist())) + "]"
            cursor.execute(
                f"SELECT fact_id FROM {SCRATCH} ORDER BY {distance} LIMIT %s", [literal, k]
            )
            found += len({row[0] for row in cursor.fetchall()} & exact)
        cursor.execute("RESET hnsw.ef_search")
    return found / (k * len(queries))


def hnsw_builds(
    rows: int, builds: list[tuple[str, int]], *, queries: int = 50, k: int = 10
) -> dict:
    """Build the HNSW index over `rows` of the workspace's vectors once per (variant, parallel
    workers) in `builds`, in order: seconds, and recall@k at ef_search 40 (pgvector's
    default) and 200 against an exact scan, for `queries` bench questions."""
    import random

    from django.db import connection

    from bench._recall_workspace import questions
    from memstore.recall.vectors import embedder_current

    count = _scratch(rows)
    embedder = embedder_current()
    asked = questions(random.Random(5), queries)
    vectors = [embedder.embed_query(q) for q in asked]
    truth = _exact(vectors, k)
    out = []
    load = [loads()]
    for variant, workers in builds:
        create, _ = VARIANTS[variant]
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {SCRATCH}_hnsw")
            cursor.execute("SET maintenance_work_mem = '4GB'")
            cursor.execute(f"SET max_parallel_maintenance_workers = {int(workers)}")
            log(f"  HNSW over {count:,} vectors: {variant}, {workers} parallel workers")
            started = time.perf_counter()
            cursor.execute(create.format(name=f"{SCRATCH}_hnsw", table=SCRATCH))
            seconds = time.perf_counter() - started
            cursor.execute("RESET maintenance_work_mem")
            cursor.execute("RESET max_parallel_maintenance_workers")
            cursor.execute(f"SELECT pg_relation_size('{SCRATCH}_hnsw')")
            size = cursor.fetchone()[0]
        recall = {ef: _recall(variant, vectors, truth, k, ef) for ef in (40, 200)}
        log(f"    {seconds:.1f} s, recall@{k} {recall}")
        out.append(
            {
                "variant": variant,
                "workers": workers,
                "seconds": seconds,
                "recall": recall,
                "mb": size / 2**20,
            }
        )
    load.append(loads())
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH}")
    return {"vectors": count, "builds": out, "load": load, "k": k, "queries": queries}


def _old_backfill(embedder, threads: int) -> int:
    """The backfill as it ran before the next chunk was embedded ahead: fetch a chunk, embed
    it, store it, then the next (`vectors_ensure` is that inner step)."""
    from memstore.recall import backfill
    from memstore.recall.vectors import vectors_ensure

    after = backfill._after.get((_database(), embedder.name), 0)
    done = 0
    while rows := backfill._pending(after, embedder.name, backfill.CHUNK):
        texts = {fact_id: text for _, fact_id, text in rows}
        done += vectors_ensure(texts, embedder=embedder, threads=threads)
        after = rows[-1][0]
    return done


def _database() -> str:
    from django.db import connection

    return connection.settings_dict["NAME"]


def reembed_rates(n: int, threads: list[int], runs: int = 2) -> dict:
    """Facts per second re-embedding the `n` newest rows' facts (their vectors deleted
    first, then put back as they were): the model alone on one thread (the ceiling), the
    backfill as it ran before and as it runs now, on each number of `threads`, alternately
    `runs` times; medians."""
    from datetime import date

    import numpy as np
    from django.db import connection

    from bench._workspace import vectors_copy
    from memstore.facts.markdown import FactLine
    from memstore.recall import backfill
    from memstore.recall.vectors import ANN_INDEXES, embedder_current

    embedder = embedder_current()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT f.id, f.fact_id, f.text, vector_send(e.vector) FROM memstore_fact f"
            " JOIN memstore_embedding e ON e.fact_id = f.fact_id AND e.model = %s"
            " ORDER BY f.id DESC LIMIT %s",
            [embedder.name, n],
        )
        rows = cursor.fetchall()
        cursor.execute("SELECT count(*) FROM memstore_embedding")
        stored = cursor.fetchone()[0]
        cursor.execute(
            "SELECT 1 FROM pg_indexes WHERE indexname = %s", [ANN_INDEXES[embedder.name][0]]
        )
        indexed = cursor.fetchone() is not None
    first = min(row[0] for row in rows)
    saved = {row[1]: np.frombuffer(row[3], dtype=">f4", count=384, offset=4) for row in rows}
    fact_ids = list(saved)
    bodies = [FactLine(day=date.min, text=row[2]).body for row in rows]

    def forget() -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "DELETE FROM memstore_embedding WHERE model = %s AND fact_id = ANY(%s)",
                [embedder.name, fact_ids],
            )
        backfill.backfill_forget()
        backfill._after[(_database(), embedder.name)] = first - 1  # resume where they start

    ways = {"model alone, 1 thread": lambda t: len(embedder.embed_passages(bodies))}
    for t in threads:
        ways[f"backfill before, {t} thread{'s' if t > 1 else ''}"] = lambda t=t: _old_backfill(
            embedder, t
        )
        ways[f"backfill now, {t} thread{'s' if t > 1 else ''}"] = lambda t=t: (
            backfill.backfill_run(embedder=embedder, threads=t).embedded
        )
    rates: dict[str, list[float]] = {name: [] for name in ways}
    load = [loads()]
    try:
        for run in range(runs):
            for name, way in ways.items():
                args = () if name.startswith("backfill") else (1,)
                if name.startswith("backfill"):
                    forget()
                started = time.perf_counter()
                done = way(*args)
                rates[name].append(done / (time.perf_counter() - started))
                log(f"  re-embed run {run + 1}/{runs}, {name}: {rates[name][-1]:.0f} facts/s")
    finally:
        forget()
        vectors_copy(embedder.name, fact_ids, np.stack(list(saved.values())))
    load.append(loads())
    return {
        "facts": len(fact_ids),
        "rates": {name: median(values) for name, values in rates.items()},
        "vectors": stored,
        "indexed": indexed,
        "load": load,
    }
