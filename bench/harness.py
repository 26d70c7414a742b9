"""The runner every benchmark shares: repeat, median and spread, the same-run baseline, the load
and the CPU of each subject, one table row per subject, and one command line.

Owns: `median`/`p95` (the only ones in bench/), `Load` and `Cpu` (this process and its Postgres
backend, or a process tree's CPU including children it has reaped), `measure` (subjects taking
turns run after run, so the baseline sees the same moments of load), `Row` and `rows_print`
(a Markdown table, or JSON with `--json`), and `parser`/`run` (`python -m bench <name>`).
Does not: set up workspaces (bench/_workspace.py) or write docs/benchmarks.md (people do).
"""

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import redirect_stdout
from dataclasses import asdict, dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


# --- figures ---------------------------------------------------------------------------------


def median(values: Iterable[float]) -> float:
    """The median (the figure every bench reports)."""
    return statistics.median(list(values))


def p95(values: Iterable[float]) -> float:
    """The 95th percentile (the largest value when there are fewer than 20)."""
    values = list(values)
    return statistics.quantiles(values, n=20)[18] if len(values) >= 20 else max(values)


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


# --- CPU -------------------------------------------------------------------------------------


def process_stat(pid: int | str) -> tuple[str, int, float] | None:
    """A process's name, parent pid and CPU seconds so far (user + system, every thread), from
    /proc; None once it is gone."""
    try:
        head, _, rest = Path(f"/proc/{pid}/stat").read_text().rpartition(")")
    except OSError:
        return None
    fields = rest.split()
    return head.split("(", 1)[1], int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def proc_cpu(pid: int | str, *, reaped: bool = False) -> float | None:
    """CPU seconds (user + system, every thread) of a process so far, from /proc; with `reaped`
    also its children's that it has waited for. None when the process is gone or not here."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    ticks = int(fields[11]) + int(fields[12])
    if reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def tree_cpu(root: int) -> float:
    """CPU seconds of a process and every descendant, each with the CPU of the children it has
    reaped: it only grows, so a delta over a window is never negative, even when workers or
    Postgres backends exit inside it (their CPU moves into their parent's reaped total)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[1])
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grown = bool(more)
    return sum(proc_cpu(pid, reaped=True) or 0.0 for pid in tree)


def backend_cpu(pid: int) -> float | None:
    """CPU seconds of a (local) Postgres backend so far: /proc's schedstat, in nanoseconds (a
    call's few milliseconds are below /proc/<pid>/stat's 10 ms ticks), else stat's ticks."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return proc_cpu(pid)


def backend_pid() -> int | None:
    """The pid of this process's Postgres backend (Django's connection), or None without one."""
    try:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return int(cursor.fetchone()[0])
    except Exception:  # no Django, no database: the bench runs without a backend
        return None


@dataclass
class Cpu:
    """CPU seconds so far of this process and of its Postgres backend (None when the backend
    runs on another machine); `Cpu.now(pid) - earlier` is the (process, backend) ms between."""

    process: float
    backend: float | None

    @classmethod
    def now(cls, backend: int | None = None) -> "Cpu":
        return cls(time.process_time(), backend_cpu(backend) if backend else None)

    def __sub__(self, earlier: "Cpu") -> tuple[float, float | None]:
        pg = None
        if self.backend is not None and earlier.backend is not None:
            pg = (self.backend - earlier.backend) * 1000
        return (self.process - earlier.process) * 1000, pg


# --- rows ------------------------------------------------------------------------------------


@dataclass
class Row:
    """One subject's figures: ms is the median of the runs' medians, low/high their spread."""

    subject: str
    ms: float
    low: float
    high: float
    p95: float
    runs: int
    samples: int
    cpu_ms: float | None = None
    pg_ms: float | None = None
    load_before: float = 0.0
    load_after: float = 0.0
    baseline: str | None = None
    vs_baseline: float | None = None
    extra: dict = field(default_factory=dict)


def row_of(subject: str, per_run: Sequence[Sequence[float]], **kw) -> Row:
    """A Row from each run's samples (ms): median of the run medians, their min and max, and
    the p95 over every sample."""
    medians = [median(run) for run in per_run if run]
    every = [x for run in per_run for x in run]
    return Row(
        subject=subject,
        ms=median(medians),
        low=min(medians),
        high=max(medians),
        p95=p95(every),
        runs=len(medians),
        samples=len(every),
        **kw,
    )


def measure(
    subjects: Mapping[str, Callable],
    *,
    runs: int,
    inputs: Sequence | Callable[[int], Sequence] = (None,),
    baseline: str | None = None,
    warmup: int = 1,
    backend: bool = True,
) -> list[Row]:
    """Time every subject `runs` times; subjects take turns within each run, so the baseline
    (the name of one of them) is measured alternately with the others. A subject is called
    with each of the run's `inputs` (a list, or run number -> list) and timed per call; none
    means it is called without arguments. CPU: this process (every thread) and its Postgres
    backend, per call. Load: the 1-minute load right before a subject's first call and right
    after its last, over all runs. The first `warmup` passes are not counted."""

    def call(fn, x):
        return fn() if x is None else fn(x)

    for _ in range(warmup):
        for fn in subjects.values():
            for x in inputs(0) if callable(inputs) else inputs:
                call(fn, x)
    pid = backend_pid() if backend else None
    times = {name: [] for name in subjects}
    cpus: dict[str, list[tuple[float, float | None]]] = {name: [] for name in subjects}
    loads: dict[str, list[float]] = {name: [] for name in subjects}
    for run in range(runs):
        batch = inputs(run) if callable(inputs) else inputs
        for name, fn in subjects.items():
            loads[name].append(load())
            samples = []
            for x in batch:
                cpu, started = Cpu.now(pid), time.perf_counter()
                call(fn, x)
                samples.append((time.perf_counter() - started) * 1000)
                cpus[name].append(Cpu.now(pid) - cpu)
            times[name].append(samples)
            loads[name].append(load())
    rows = []
    for name in subjects:
        pg = [b for _, b in cpus[name] if b is not None]
        rows.append(
            row_of(
                name,
                times[name],
                cpu_ms=median(a for a, _ in cpus[name]),
                pg_ms=median(pg) if pg else None,
                load_before=loads[name][0],
                load_after=loads[name][-1],
            )
        )
    return baseline_apply(rows, baseline)


def baseline_apply(rows: list[Row], baseline: str | None) -> list[Row]:
    """Set every row's ratio to the baseline row's median (same run)."""
    base = next((r for r in rows if r.subject == baseline), None)
    for row in rows:
        if base is not None and base.ms:
            row.baseline, row.vs_baseline = baseline, row.ms / base.ms
    return rows


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def rows_table(rows: Sequence[Row], title: str = "") -> str:
    """A Markdown table, one row per subject (extra columns from each row's `extra`)."""
    extras = list(dict.fromkeys(k for row in rows for k in row.extra))
    head = [
        "subject",
        "median ms",
        "min–max of runs",
        "p95 ms",
        "vs baseline",
        "CPU ms",
        "Postgres CPU ms",
        "load before → after",
        "runs × samples",
        *extras,
    ]
    lines = [f"{title}\n" if title else "", "| " + " | ".join(head) + " |"]
    lines.append("| --- |" + " ---: |" * (len(head) - 1))
    for r in rows:
        ratio = f"{r.vs_baseline:.2f}×" if r.vs_baseline is not None else "—"
        cells = [
            r.subject + (" (baseline)" if r.subject == r.baseline else ""),
            _num(r.ms),
            f"{_num(r.low)}–{_num(r.high)}",
            _num(r.p95),
            ratio,
            _num(r.cpu_ms),
            _num(r.pg_ms),
            f"{r.load_before:.1f} → {r.load_after:.1f}",
            f"{r.runs} × {r.samples // max(r.runs, 1)}",
            *(str(r.extra.get(k, "")) for k in extras),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines).lstrip("\n")


def rows_print(rows: Sequence[Row], title: str = "") -> None:
    """Print the rows as a Markdown table (stdout; with --json the runner prints the result)."""
    print(rows_table(rows, title))


# --- the command line ------------------------------------------------------------------------


def parser(name: str, module) -> argparse.ArgumentParser:
    """The one argument parser shape: --runs (default the module's RUNS, else 3), --quick (small
    sizes, to see that the bench still runs), --json; the module adds its own in `arguments`."""
    doc = (module.__doc__ or "").strip()
    out = argparse.ArgumentParser(
        prog=f"python -m bench {name}",
        description=doc.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        conflict_handler="resolve",  # a module may redefine --runs (e.g. runs per size)
    )
    out.add_argument("--runs", type=int, default=getattr(module, "RUNS", 3), help="repeats")
    out.add_argument("--quick", action="store_true", help="small sizes: check that it runs")
    out.add_argument("--json", action="store_true", help="print the result as JSON")
    if hasattr(module, "arguments"):
        module.arguments(out)
    return out


def _jsonable(value):
    if isinstance(value, Row):
        return asdict(value)
    if isinstance(value, Path):
        return str(value)
    return repr(value)


def run(name: str, module, argv: list[str]) -> int:
    """Parse `argv`, apply --quick (the module's QUICK options), call `module.run(args)` and,
    with --json, print what it returned as JSON (its tables then go to stderr)."""
    args = parser(name, module).parse_args(argv)
    args.argv = argv
    if args.quick:  # the module's QUICK options (default: one run)
        for option, value in getattr(module, "QUICK", {"runs": 1}).items():
            setattr(args, option, value)
    if not args.json:
        result = module.run(args)
    else:
        with redirect_stdout(sys.stderr):
            result = module.run(args)
        print(json.dumps(result, default=_jsonable, indent=1))
    return 0
