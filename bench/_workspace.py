"""What every benchmark shares: workspace setup, timing and output.

Setup: `bench_database(name)` points DATABASE_URL at a kept database of the bench's own on the
same server (DATABASE_URL, or the embedded Postgres under ./var), so cached workspaces survive
between runs; `django_start(memory_root)` sets Django up on it and migrates;
`isolated_workspace(name)` instead makes a throwaway database and MEMORY_ROOT, dropped afterwards.
None of them touches the test database or the one `./dev serve` uses.

Vectors: `vectors_composed` stands fact vectors in for timing runs.

Timing: `median_ms`, `p95_ms`. Output: progress via `log` on stderr (stdout stays for results),
and `docs_section_write` to replace one benchmark's section of docs/benchmarks.md.
"""

import os
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("VAR_DIR", REPO / "var"))
DOCS = REPO / "docs" / "benchmarks.md"
# Notes written by hand after this mark in a section stay when the benchmark rewrites it.
NOTES_MARK = "<!-- notes below are kept when the benchmark rewrites this section -->"


def log(message: str) -> None:
    """Progress on stderr, so stdout stays for results."""
    print(message, file=sys.stderr, flush=True)


# --- setup -----------------------------------------------------------------------------------


def bench_database(name: str) -> str:
    """Point DATABASE_URL at database `name` on the same server (created if missing); return it."""
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


def vectors_composed(embedder, parts: list[str]) -> int:
    """Store, for every indexed fact without a vector, the normalised sum of the real vectors
    of the template parts its text contains: a few dozen model runs instead of one per fact
    (an hour for 100,000 on a loaded 2-core box). Cosines to a bench's questions land where real
    ones do, so the relevance floor keeps a realistic number of hits. For timing only, never
    for quality. Returns how many vectors it stored."""
    import numpy as np

    from memstore.models import Embedding, Fact
    from memstore.recall.vectors import _store

    vectors = {part: embedder.embed_passages([part])[0] for part in parts}
    have = set(Embedding.objects.filter(model=embedder.name).values_list("fact_id", flat=True))
    texts = dict(Fact.objects.exclude(fact_id__in=have).values_list("fact_id", "text"))
    ids, rows = [], []
    for fact_id, text in texts.items():
        found = [vector for part, vector in vectors.items() if part in text]
        if found:
            total = np.sum(found, axis=0)
            ids.append(fact_id)
            rows.append(total / np.linalg.norm(total))
    for start in range(0, len(ids), 5000):
        _store(embedder, ids[start : start + 5000], np.asarray(rows[start : start + 5000]))
    return len(ids)


# --- timing ----------------------------------------------------------------------------------


def median_ms(seconds: list[float]) -> float:
    """The median of durations in seconds, in milliseconds."""
    return statistics.median(seconds) * 1000


def p95_ms(samples_ms: list[float]) -> float:
    """The 95th percentile of samples already in milliseconds (the largest when under 20)."""
    if len(samples_ms) >= 20:
        return statistics.quantiles(samples_ms, n=20)[18]
    return max(samples_ms)


# --- output ----------------------------------------------------------------------------------


def docs_section_write(heading: str, body: str) -> None:
    """Replace the section `heading` of docs/benchmarks.md with `body` (appended when missing);
    other sections, and notes after NOTES_MARK in this one, stay as they are."""
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else "# Benchmarks\n"
    notes = ""
    if heading in text:
        head, _, rest = text.partition(heading)
        following = rest.find("\n## ")
        old, tail = (rest[:following], rest[following + 1 :]) if following != -1 else (rest, "")
        if NOTES_MARK in old:
            notes = "\n" + NOTES_MARK + old.split(NOTES_MARK, 1)[1].rstrip() + "\n"
    else:
        head, tail = text.rstrip() + "\n\n", ""
    section = f"{heading}\n\n{body.strip()}\n{notes}"
    DOCS.parent.mkdir(exist_ok=True)
    DOCS.write_text(head + section + ("\n" + tail if tail else ""), encoding="utf-8")
    log(f"wrote {DOCS.relative_to(REPO)} ({heading})")
