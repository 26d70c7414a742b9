"""The benchmarks' shared runner: subjects take turns with the baseline, rows carry the median,
the spread, the ratio and the load, CPU deltas of a process tree never go negative, and every
bench takes the same command line. Nothing here depends on the machine's speed."""

import json
import os
import subprocess
import sys

import pytest

from bench import harness


def test_subjects_take_turns_within_each_run():
    calls = []
    subjects = {"baseline": lambda: calls.append("b"), "subject": lambda: calls.append("s")}
    rows = harness.measure(subjects, runs=3, baseline="baseline", warmup=1, backend=False)
    assert calls == ["b", "s"] * 4  # one warm-up pass, then 3 runs, alternating
    assert [r.subject for r in rows] == ["baseline", "subject"]
    assert all(r.runs == 3 and r.samples == 3 and r.baseline == "baseline" for r in rows)
    assert rows[0].vs_baseline == 1.0
    assert rows[0].low <= rows[0].ms <= rows[0].high


def test_inputs_per_run_reach_the_subject():
    seen = []
    harness.measure(
        {"one": seen.append},
        runs=2,
        inputs=lambda run: [run * 10, run * 10 + 1],
        warmup=0,
        backend=False,
    )
    assert seen == [0, 1, 10, 11]


def test_a_row_is_the_median_of_the_run_medians_with_their_spread():
    row = harness.row_of("x", [[1.0, 2.0, 9.0], [4.0], [3.0, 3.0]])
    assert (row.ms, row.low, row.high, row.runs, row.samples) == (3.0, 2.0, 4.0, 3, 6)
    assert row.p95 == 9.0  # fewer than 20 samples: the largest


def test_the_table_has_one_row_per_subject_with_load_and_ratio():
    rows = harness.baseline_apply(
        [
            harness.Row("base", 2.0, 1.5, 2.5, 3.0, 2, 20, load_before=1.0, load_after=2.0),
            harness.Row("new", 3.0, 2.0, 4.0, 5.0, 2, 20, extra={"statements": 4}),
        ],
        "base",
    )
    lines = harness.rows_table(rows).splitlines()
    assert lines[0].startswith("| subject | median ms | min–max of runs |")
    assert lines[0].endswith("| statements |")
    assert lines[2].startswith("| base (baseline) | 2.00 | 1.50–2.50 |")
    assert "| 1.50× |" in lines[3] and "| 1.0 → 2.0 |" in lines[2]


def test_a_process_trees_cpu_keeps_what_exited_children_used():
    before = harness.tree_cpu(os.getpid())
    child = subprocess.run(
        [sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True
    )
    assert child.returncode == 0
    assert harness.tree_cpu(os.getpid()) >= before  # the reaped child's CPU stays counted


@pytest.mark.parametrize("name", ["partial", "secrets", "recall", "api", "scale", "prompt_size"])
def test_every_bench_takes_the_shared_options(name):
    import importlib

    module = importlib.import_module(f"bench.{name}")
    args = harness.parser(name, module).parse_args(["--runs", "2", "--quick", "--json"])
    assert (args.runs, args.quick, args.json) == (2, True, True)


def test_json_prints_what_the_bench_returned(capsys):
    class Module:
        """A bench."""

        @staticmethod
        def run(args):
            print("a table")
            return [harness.Row("x", 1.0, 1.0, 1.0, 1.0, 1, 1)]

    assert harness.run("fake", Module, ["--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)[0]["subject"] == "x" and "a table" in out.err
