"""Benchmarks: `python -m bench <name> [--runs N] [--quick] [--json] [its options]`.

A bench is bench/<name>.py with:
- a docstring (its first paragraph is `--help`'s description; say what it measures against what);
- `RUNS = n` (optional: the default of `--runs`, else 3) and `QUICK = {option: value}` (optional:
  what `--quick` sets, small sizes to see that it still runs; default one run);
- `arguments(parser)` (optional): its own options beside the shared `--runs`, `--quick`, `--json`;
- `run(args)`: measures, prints its table(s) to stdout (progress to stderr with `log`) and returns
  what `--json` prints (its rows, or a dict).

bench/harness.py is the runner: `measure(subjects, runs=, inputs=, baseline=)` times named
callables taking turns run after run (the baseline alternately with the others), and returns one
`Row` per subject: median of the run medians, their min–max, p95, ratio to the baseline, CPU ms
of this process and of its Postgres backend per call, the load right before and after;
`rows_print(rows, title)` prints them as one Markdown table. `median`, `p95`, `load`, `Cpu`,
`tree_cpu` (a process tree's CPU, exited children included) and `row_of` (a Row from samples a
bench timed itself) are there for benches that drive their own loop. bench/_workspace.py sets up
the databases and workspaces. Benches never write docs/benchmarks.md: people copy figures there.
"""
