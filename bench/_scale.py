"""The workspaces `bench scale` measures, and the plans of the statements it times.

Owns: the layout per size (`shards`), writing its files (with `bench recall`'s fact texts and
writer), building the index, the registry and composed vectors once per size and reusing them
(`ensure`, with each step's time kept in the tree's `.complete`), and `explain_all`.
Does not: time anything the bench reports (see bench/scale.py).
"""

import json
import random
import shutil
import time
from datetime import date
from pathlib import Path

from bench._recall_workspace import ACTIONS, PEOPLE, THINGS, WHEN, fact_texts, write_shard
from bench._workspace import (
    VAR,
    ann_index_drop,
    ann_index_restore,
    bench_database,
    django_start,
    log,
    vectors_composed,
)
from bench.sync import age

UNIT = 100_000
PER_UNIT = {"bots": 10, "people": 5, "projects": 4}
FULL = {"own": 7_000, "person": 2_000, "project": 5_000}  # facts per scope from 100,000 up
# Filler facts end with a place, so they never repeat the benched bot's texts (which have none).
PLACES = [
    " in Berlin",
    " at the Porto office",
    " in the Oslo branch",
    " at headquarters",
    " in the Madrid hub",
    " at the warehouse",
    " in Singapore",
    " at the Dublin site",
    " in the Tokyo studio",
    " at the lab",
    " in Nairobi",
    " at the Austin campus",
]


def bot(i: int) -> str:
    return f"bot-{i:03d}"


def person(i: int) -> str:
    return f"person-{i:02d}"


def project(i: int) -> str:
    return f"proj-{i:02d}"


SPEC = {"bot": bot(0), "person": person(0), "projects": [project(0), project(1)]}
BENCHED = {f"bot:{bot(0)}", f"user:{person(0)}", f"project:{project(0)}", f"project:{project(1)}"}


def shape(size: int) -> tuple[dict[str, int], dict[str, int]]:
    """How many bots, people and projects, and how many facts each of their scopes holds."""
    units, part = max(1, size // UNIT), min(size, UNIT) / UNIT
    return (
        {kind: n * units for kind, n in PER_UNIT.items()},
        {kind: int(n * part) for kind, n in FULL.items()},
    )


def shards(size: int) -> list[tuple[str, str, int]]:
    """(scope key, folder, facts) of every shard: a person's memory is written by two bots,
    a project's by three."""
    counts, facts = shape(size)
    n = counts["bots"]
    out = [(f"bot:{bot(b)}", f"agents/{bot(b)}/memory", facts["own"]) for b in range(n)]
    for p in range(counts["people"]):
        half = facts["person"] // 2
        for k, writer in enumerate((2 * p % n, (2 * p + 1) % n)):
            rel = f"users/{person(p)}/memory/by-agent/{bot(writer)}"
            out.append((f"user:{person(p)}", rel, facts["person"] - half if k == 0 else half))
    for j in range(counts["projects"]):
        third = facts["project"] // 3
        for w in range(3):
            rel = f"projects/{project(j)}/memory/by-agent/{bot((j + w) % n)}"
            out.append(
                (f"project:{project(j)}", rel, facts["project"] - 2 * third if w == 0 else third)
            )
    return out


def filler_texts(n: int, seed: int = 13) -> list[str]:
    """n distinct fact texts from `bench recall`'s templates, each with a place added."""
    sizes = [len(PEOPLE), len(ACTIONS), len(THINGS), len(WHEN), len(PLACES)]
    space = 1
    for count in sizes:
        space *= count
    texts = []
    for index in random.Random(seed).sample(range(space), n):
        index, where = divmod(index, len(PLACES))
        index, when = divmod(index, len(WHEN))
        index, thing = divmod(index, len(THINGS))
        who, action = divmod(index, len(ACTIONS))
        texts.append(f"{PEOPLE[who]} {ACTIONS[action]} {THINGS[thing]} {WHEN[when]}{PLACES[where]}")
    return texts


def tree_write(root: Path, size: int) -> None:
    """Every shard's profile and monthly logs (about 100 facts a file)."""
    layout = shards(size)
    benched = sum(facts for key, _, facts in layout if key in BENCHED)
    total = sum(facts for _, _, facts in layout)
    mine, rest = iter(fact_texts(benched)), iter(filler_texts(total - benched))
    for done, (key, rel, facts) in enumerate(layout, 1):
        source = mine if key in BENCHED else rest
        write_shard(root, rel, [next(source) for _ in range(facts)], per_file=100)
        if done % max(1, len(layout) // 10) == 0:
            log(f"  wrote {done:,}/{len(layout):,} shards")
    age(root)  # files as old as memory files usually are: no racy-timestamp rechecks


def _registry(size: int) -> None:
    """Bots, the projects they write in (and the benched bot's second), people and links."""
    from memstore.models import Bot
    from memstore.registry.bots import bot_create, project_join
    from memstore.registry.people import person_add, person_link

    counts, _ = shape(size)
    if Bot.objects.count() == counts["bots"]:
        return
    for b in range(counts["bots"]):
        if not Bot.objects.filter(slug=bot(b)).exists():
            bot_create(slug=bot(b))
    for key, rel, _ in shards(size):
        if key.startswith("project:"):
            project_join(bot=rel.rsplit("/", 1)[1], project=key.split(":", 1)[1])
    project_join(bot=SPEC["bot"], project=SPEC["projects"][1])
    for p in range(counts["people"]):
        person_add(name=person(p), exist_ok=True)
        for writer in (2 * p % counts["bots"], (2 * p + 1) % counts["bots"]):
            person_link(person=person(p), bot=bot(writer))


def _step(state: dict, marker: Path, name: str, started: float) -> None:
    state["build"][name] = time.perf_counter() - started
    marker.write_text(json.dumps(state))
    log(f"  {name.removesuffix('_s')}: {state['build'][name]:.1f} s")


def _marker(size: int) -> Path:
    return VAR / "bench" / f"scale-{size}" / ".complete"


def _hnsw_present(model: str) -> bool:
    from django.db import connection

    from memstore.recall.vectors import ANN_INDEXES

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [ANN_INDEXES[model][0]])
        return cursor.fetchone() is not None


def hnsw_restore(size: int) -> float | None:
    """Recreate the HNSW index if it is missing (timed, and kept in the build record)."""
    from memstore.recall.vectors import embedder_current

    embedder = embedder_current()
    seconds = ann_index_restore(embedder.name) if embedder is not None else None
    if seconds is not None:
        state = json.loads(_marker(size).read_text())
        state["build"]["hnsw_s"] = seconds
        _marker(size).write_text(json.dumps(state))
        log(f"  HNSW index: {seconds:.1f} s")
    return seconds


def ensure(size: int, *, hnsw_first: bool = True) -> dict:
    """Set Django up on this size's database and tree, building whatever is missing; returns
    the build record and what the measurement needs. With `hnsw_first` False a missing HNSW
    index stays missing (the caller restores it with `hnsw_restore` after measuring)."""
    marker = _marker(size)
    root = marker.parent
    bench_database(f"memstore_bench_scale_{size}")
    state = json.loads(marker.read_text()) if marker.exists() else None
    if state is None:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        state = {"build": {"date": str(date.today())}}
        log(f"writing {size:,} facts under {root}")
        started = time.perf_counter()
        tree_write(root, size)
        _step(state, marker, "write_s", started)
    django_start(root)
    from django.db import connection

    from memstore.index import index_rebuild
    from memstore.management.progress import ProgressBar
    from memstore.models import Embedding, Fact, MemoryFile
    from memstore.recall.vectors import ANN_MIN_FACTS, ANN_MIN_SHARE, embedder_current

    if Fact.objects.count() != size or "rebuild_s" not in state["build"]:
        log("rebuilding the index from the files")
        bar, started = ProgressBar(unit="files"), time.perf_counter()
        index_rebuild(progress=bar.update)
        bar.finish()
        _step(state, marker, "rebuild_s", started)
    _registry(size)
    from memstore.facts.paths import all_scopes
    from memstore.index import index_sync

    report = index_sync(scopes=all_scopes(root))  # a later run finds nothing to do
    if report.changed:
        log(f"synced {report.changed:,} changed files of {report.files:,}")
    embedder = embedder_current()
    if embedder is not None:
        stored = Embedding.objects.filter(model=embedder.name).count()
        if stored < Fact.objects.values("fact_id").distinct().count():
            dropped = ann_index_drop(embedder.name)
            log(f"storing composed vectors (HNSW index {'dropped' if dropped else 'absent'})")
            started = time.perf_counter()
            vectors_composed(embedder, PEOPLE + ACTIONS + THINGS + WHEN + PLACES)
            _step(state, marker, "vectors_s", started)
        if hnsw_first:
            hnsw_restore(size)  # also after a run killed mid-build
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE memstore_fact")
        cursor.execute("VACUUM ANALYZE memstore_memoryfile")
        cursor.execute("VACUUM ANALYZE memstore_embedding")
    counts, facts = shape(size)
    searched = Fact.objects.filter(scope_key__in=BENCHED).count()
    stored = Embedding.objects.count() if embedder is not None else 0
    ann = stored > 0 and searched >= ANN_MIN_FACTS and searched / stored >= ANN_MIN_SHARE
    state["build"]["files"] = MemoryFile.objects.count()
    return {
        "build": state["build"],
        "hnsw_present": embedder is not None and _hnsw_present(embedder.name),
        "spec": SPEC,
        "facts": Fact.objects.count(),
        "searched": searched,
        "vector_path": (
            "none (no model)" if embedder is None else "HNSW" if ann else "exact scan in process"
        ),
        "shape": (
            f"{counts['bots']} bots × {facts['own']:,} own facts, {counts['people']} people × "
            f"{facts['person']:,}, {counts['projects']} projects × {facts['project']:,}"
        ),
    }


# --- plans -----------------------------------------------------------------------------------

EXPLAINED = ["sync_bot", "lexical", "hybrid", "prompt", "page", "keystroke", "sync_all"]


def explain_all(spec: dict, calls: dict, top: int = 3) -> None:
    """Print EXPLAIN (ANALYZE, BUFFERS) of each timed call's slowest SELECT statements."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for key in EXPLAINED:
        calls[key]("offsite budget")  # warm
        with CaptureQueriesContext(connection) as captured:
            calls[key]("offsite budget")
        selects = [q for q in captured if q["sql"].lstrip().upper().startswith(("SELECT", "WITH"))]
        selects.sort(key=lambda q: -float(q["time"]))
        print(f"\n#### {key} ({spec['bot']}): {len(captured)} statements")
        for query in selects[:top]:
            print(
                f"\n{query['time']} s: {query['sql'][:300]}{'…' if len(query['sql']) > 300 else ''}"
            )
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + query["sql"])
                print("\n".join("    " + row[0] for row in cursor.fetchall()))
