"""The prompt's first request in a cold process, and the prompt after a write, as one bot's
own scope grows (issue 34): 1k -> 10k -> 100k [-> 1M] facts.

    python -m bench prompt_size [--sizes 1000,10000,100000] [--runs 7] [--writes 20]
        [--compare-up-to 100000] [--quick] [--json]

In a throwaway database and MEMORY_ROOT, a bot's own scope of N facts laid out as
`bench.prompt_write` does (a tenth in its profile, the rest in six monthly logs), rebuilt with
`reindex`; per size:
- cold: `prompt_build` with the process's blocks and states forgotten (`prompt_cache_clear`),
  wall ms and CPU ms (this process plus its Postgres backend), median of `--runs`;
- baseline: the same with each block read the way it was before issue 34 (`sorted_load`: one
  statement that merges and sorts the whole scope), up to `--compare-up-to` facts, and whether
  the two texts are byte for byte the same;
- after a write: a remember, an edit and a forget in this month's log, each followed by a timed
  prompt (`bench.prompt_write._round`), CPU ms per prompt, median over `--writes` rounds.
Prints a table; the load average before and after.
"""

import os
import time
from datetime import date

from bench._workspace import isolated_workspace, log
from bench.harness import median

# What the prompt read before: one statement that merges and sorts the whole scope.
_SORTED_SQL = """
    WITH merged AS MATERIALIZED (
        SELECT DISTINCT ON (f.fact_id) f.id, f.fact_id, f.day, f.rank AS file_rank, f.weight,
               m.path, f.position, f.tier = 'profile' AS profile,
               CASE WHEN {expired} THEN 'expired'
                    WHEN f.visibility = 'private' THEN %s
                    WHEN f.visibility IN ('hidden', 'searchable') THEN f.visibility
                    ELSE 'context' END AS visibility
        FROM memstore_fact f
        JOIN memstore_memoryfile m ON m.id = f.file_id AND m.scope_key = %s
        WHERE f.scope_key = %s
        ORDER BY f.fact_id, f.day DESC, f.shard_bot, m.path
    ),
    nudged AS (
        SELECT c.id, c.fact_id, c.day, c.weight, c.path, c.position, c.profile, {bonus} AS bonus,
               c.file_rank + {bonus} AS rank
        FROM merged c
        LEFT JOIN memstore_factusage u ON u.scope_key = %s AND u.fact_id = c.fact_id
        WHERE c.visibility = 'context'
    ),
    ranked AS (
        SELECT id, profile, bonus, row_number() OVER (
                   PARTITION BY profile ORDER BY {order}) AS n
        FROM nudged
    )
    SELECT 'row', id, profile, '', bonus FROM ranked
    WHERE n <= CASE WHEN profile THEN %s ELSE %s END
    UNION ALL
    SELECT 'count', count(*), profile, visibility, 0.0 FROM merged GROUP BY profile, visibility
"""


def sorted_load(scope, budgets, private: bool = False):
    """The block as the sort of the whole scope gave it before issue 34 (the reference)."""
    from dataclasses import replace

    from django.db import connection
    from django.db.models import F
    from django.utils import timezone

    from memstore.facts.ranking import rank_order_sql, usage_bonus_sql, weight_order_sql
    from memstore.facts.records import stored_from_row
    from memstore.facts.validity import expired_sql
    from memstore.models import Fact
    from memstore.prompt.compose import BlockInput
    from memstore.prompt.incremental import WITHHELD_SPARE
    from memstore.rules.withheld import fact_flag

    sql = _SORTED_SQL.replace("{expired}", expired_sql("f"))
    sql = sql.replace("{bonus}", f"{usage_bonus_sql('u.')}::float8")

    today = timezone.localdate().isoformat()
    order = weight_order_sql("", "") if scope.kind == "server" else rank_order_sql("", "")
    args = [today, "context" if private else "hidden", str(scope), str(scope), str(scope)]
    limits = [budgets["profile"].facts + WITHHELD_SPARE, budgets["recent"].facts + WITHHELD_SPARE]
    with connection.cursor() as cursor:
        cursor.execute(sql.replace("{order}", order), [*args, *limits])
        rows = cursor.fetchall()
    bonus = {row[1]: row[4] for row in rows if row[0] == "row"}
    on_disk = {"profile": 0, "recent": 0, "searchable": 0}
    for kind, count, profile, visibility, _ in rows:
        if kind == "count" and visibility == "context":
            on_disk["profile" if profile else "recent"] += count
        elif kind == "count" and visibility == "searchable":
            on_disk["searchable"] += count
    facts = [
        replace(stored, rank=stored.rank + bonus[row.pk]) if bonus[row.pk] else stored
        for row in Fact.objects.filter(pk__in=list(bonus)).annotate(file_path=F("file__path"))
        if (stored := stored_from_row(row))
    ]
    flagged = frozenset(f.fact_id for f in facts if fact_flag(f))
    return BlockInput(
        kind=scope.kind,
        name=scope.name,
        facts=facts,
        on_disk=on_disk,
        private=private,
        flagged=flagged,
    )


def _timed(build) -> tuple[float, float, str]:
    from bench.prompt_write import _backend_cpu

    backend, cpu, start = _backend_cpu(), time.process_time(), time.perf_counter()
    text = build()
    wall = (time.perf_counter() - start) * 1000
    cpu = (time.process_time() - cpu) * 1000 + _backend_cpu() - backend
    return wall, cpu, text


def _cold(ctx, runs: int, reference: bool) -> tuple[float, float, str]:
    from memstore.prompt import section
    from memstore.prompt.cache import prompt_cache_clear

    walls, cpus, text = [], [], ""
    original = section._load
    if reference:
        section._load = sorted_load
    try:
        for _ in range(runs):
            prompt_cache_clear()
            wall, cpu, text = _timed(lambda: section.prompt_build(ctx=ctx).text)
            walls.append(wall)
            cpus.append(cpu)
    finally:
        section._load = original
    return median(walls), median(cpus), text


def _size(root, ctx, shard, facts: int, args) -> dict:
    import shutil

    from bench.prompt_write import _round, _setup
    from memstore.index import index_rebuild
    from memstore.prompt.cache import prompt_cache_clear

    for child in root.iterdir():  # the previous size's files
        shutil.rmtree(child)
    _setup(root, facts)
    started = time.perf_counter()
    index_rebuild()
    log(f"{facts:,} facts rebuilt in {time.perf_counter() - started:.1f} s")
    row = {"facts": facts}
    row["cold"] = _cold(ctx, args.runs, reference=False)
    if facts <= args.compare_up_to:
        row["baseline"] = _cold(ctx, max(1, args.runs // 2), reference=True)
        row["same"] = row["baseline"][2] == row["cold"][2]
    prompt_cache_clear()
    _round(ctx, shard, "warmup")
    cpu: dict[str, list[float]] = {}
    for i in range(args.writes):
        for kind, (_, own, backend) in _round(ctx, shard, f"w{i}").items():
            cpu.setdefault(kind, []).append(own + backend)
    row["after"] = {kind: median(values) for kind, values in cpu.items()}
    shown = {k: v[:2] if k in ("cold", "baseline") else v for k, v in row.items()}
    log(f"{facts:,}: {shown}")
    return row


RUNS = 7
QUICK = {"runs": 1, "writes": 2, "sizes": "500,2000", "compare_up_to": 2000}


def arguments(parser) -> None:
    parser.add_argument("--sizes", default="1000,10000,100000", help="facts, comma-separated")
    parser.add_argument("--writes", type=int, default=20, help="rounds after a write")
    parser.add_argument("--compare-up-to", type=int, default=100_000, help="baseline sizes")


def run(args) -> list[dict]:
    load = [f"{value:.2f}" for value in os.getloadavg()]
    rows = []
    with isolated_workspace("memstore_bench_prompt_size") as root:
        from memstore.facts.paths import Scope
        from memstore.rooms.access import Context, Room

        ctx = Context(bot="ava", room=Room("team", "group"))
        shard = Scope("bot", "ava").shard("ava")
        for facts in (int(n) for n in args.sizes.split(",")):
            rows.append(_size(root, ctx, shard, facts, args))
    load_after = [f"{value:.2f}" for value in os.getloadavg()]
    print(_report(rows, args, load, load_after))
    return [
        {key: value[:2] if key in ("cold", "baseline") else value for key, value in row.items()}
        for row in rows
    ]


def _report(rows: list[dict], args, load: list[str], load_after: list[str]) -> str:
    lines = [
        f"Command: `python -m bench prompt_size --sizes {args.sizes} --runs {args.runs}"
        f" --writes {args.writes} --compare-up-to {args.compare_up_to}` ({date.today()};"
        f" load average {' / '.join(load)} before, {' / '.join(load_after)} after).",
        "",
        "| facts | cold first prompt ms (CPU ms) | before issue 34, same run ms (CPU ms) | same text"
        " | after remember / edit / forget, CPU ms |",
        "| ---: | ---: | ---: | :---: | ---: |",
    ]
    for row in rows:
        wall, cpu, _ = row["cold"]
        base = row.get("baseline")
        before = f"{base[0]:.1f} ({base[1]:.1f})" if base else "not run"
        same = {True: "yes", False: "NO", None: "-"}[row.get("same")]
        after = " / ".join(f"{row['after'][k]:.2f}" for k in ("remember", "edit", "forget"))
        lines.append(f"| {row['facts']:,} | {wall:.1f} ({cpu:.1f}) | {before} | {same} | {after} |")
    return "\n".join(lines)
