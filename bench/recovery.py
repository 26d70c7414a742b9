"""Recovery after losing the database (SPEC §10, docs/deploy.md): how long until the index is back.

    python -m bench recovery [--facts 200000] [--files 2000] [--embed 2000]

Generates a workspace tree the way `bench sync` does (facts spread over bots, people and
projects), then does what an operator does after losing the database, each step in a fresh
`manage.py` process, timed (wall and CPU seconds of that process):

1. an empty database: `manage.py migrate`;
2. `manage.py reindex` (run through `call_command` so the Postgres backend's CPU time can be
   read too): every file read, every row and index rebuilt;
3. a sync of every scope in the workspace (what the next requests do before they read): it
   must find nothing to do. Timed once right after the rebuild and once more (warm caches);
4. with `--embed N`: the rate at which the bundled model re-embeds facts (vectors live in the
   database too and come back lazily, per scope on its first recall, or all at once with
   `manage.py recall_embed`), measured on N facts and extrapolated.

Uses its own database `memstore_recovery` (dropped and recreated) on the server DATABASE_URL
names (or the embedded one) and its own tree under ./var/bench-recovery. The results table goes
to stdout, progress to stderr.
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import time

from bench._workspace import REPO, VAR, bench_database, log
from bench.sync import generate

DB = "memstore_recovery"


def timed(env: dict, *args: str) -> dict:
    """Run `manage.py <args>`; its wall seconds, CPU seconds and last line of output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = proc.stdout.strip().splitlines()
    return {"wall": wall, "cpu": cpu, "said": lines[-1] if lines else ""}


_REINDEX_CHILD = """
import io, json, os, time, django
django.setup()
from django.core.management import call_command
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("SELECT pg_backend_pid()")
    backend = cursor.fetchone()[0]
from bench.harness import process_stat
def cpu(pid):  # user + system seconds of a process
    found = process_stat(pid)
    return None if found is None else found[2]
t0, mine, server = time.perf_counter(), time.process_time(), cpu(backend)
out = io.StringIO()
call_command("reindex", stdout=out, stderr=io.StringIO())
after = cpu(backend)
print(json.dumps({
    "wall": time.perf_counter() - t0,
    "cpu": time.process_time() - mine,
    "server_cpu": None if server is None or after is None else after - server,
    "said": out.getvalue().strip().splitlines()[-1],
}))
"""

_SYNC_CHILD = """
import json, time, django
django.setup()
from memstore.index import index_sync
from memstore.facts.paths import memory_root
from memstore.facts.paths import all_scopes
out = []
for _ in range(2):
    t0 = time.perf_counter()
    scopes = all_scopes(memory_root())
    report = index_sync(scopes=scopes)
    out.append({"seconds": time.perf_counter() - t0, "scopes": len(scopes),
                "files": report.files, "changed": report.changed})
print(json.dumps(out))
"""

_EMBED_CHILD = """
import json, sys, time, django
django.setup()
from memstore.models import Fact
from memstore.recall.vectors import embedder_current, vectors_ensure
embedder = embedder_current()
if embedder is None:
    print(json.dumps(None)); sys.exit()
n = int(sys.argv[1])
texts = dict(Fact.objects.order_by("id").values_list("fact_id", "text")[:n])
t0 = time.perf_counter()
done = vectors_ensure(texts, embedder=embedder)
print(json.dumps({"facts": done, "seconds": time.perf_counter() - t0, "model": embedder.name}))
"""


def child(env: dict, code: str, *args: str):
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


QUICK = {"facts": 2_000, "files": 20}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--embed", type=int, default=0, help="facts to re-embed (0: skip)")
    parser.add_argument("--keep", action="store_true", help="keep the tree and the database")


def run(args):
    root = VAR / "bench-recovery"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    log(f"generating {args.facts:,} facts in {args.files:,} files under {root}")
    generate(root, args.files, args.facts)
    env = {
        **os.environ,
        "DATABASE_URL": bench_database(DB, fresh=True),
        "MEMORY_ROOT": str(root),
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "PYTHONPATH": str(REPO),
    }
    log("the database is gone: migrate, reindex, then sync everything")
    results = {
        "cpus": os.cpu_count(),
        "facts": args.facts,
        "files": args.files,
        "migrate": timed(env, "migrate", "--no-input", "-v0"),
        "reindex": child(env, _REINDEX_CHILD),
        "sync": child(env, _SYNC_CHILD),
    }
    if args.embed:
        log(f"re-embedding {args.embed:,} facts")
        results["embed"] = child(env, _EMBED_CHILD, str(args.embed))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    report(results)


def report(r: dict) -> None:
    print(f"machine: {r['cpus']} CPUs; workspace: {r['facts']:,} facts in {r['files']:,} files")
    s = r["migrate"]
    print(f"manage.py migrate (empty database): {s['wall']:.1f} s wall, {s['cpu']:.1f} s CPU")
    s = r["reindex"]
    server = f" + Postgres backend {s['server_cpu']:.1f} s" if s["server_cpu"] is not None else ""
    print(
        f"manage.py reindex: {s['wall']:.1f} s wall, CPU: the command {s['cpu']:.1f} s{server}"
        f" | {s['said']}"
    )
    first, second = r["sync"]
    print(
        f"sync of all {first['scopes']:,} scopes ({first['files']:,} files) after the rebuild: "
        f"{first['seconds'] * 1000:.0f} ms, {first['changed']} changed | again: "
        f"{second['seconds'] * 1000:.0f} ms, {second['changed']} changed"
    )
    if embed := r.get("embed"):
        rate = embed["facts"] / embed["seconds"] if embed["seconds"] else 0.0
        whole = r["facts"] / rate / 60 if rate else 0.0
        print(
            f"re-embedding ({embed['model']}): {embed['facts']:,} facts in "
            f"{embed['seconds']:.1f} s = {rate:,.0f} facts/s (the whole workspace: ~{whole:.0f} min)"
        )
    elif "embed" in r:
        print("re-embedding: no embedding model installed")
