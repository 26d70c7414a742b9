"""Run a benchmark: `python -m bench <name> [--runs N] [--quick] [--json] [its options]` parses
the shared options and bench/<name>.py's own (its `arguments(parser)`) and calls its `run(args)`
through bench/harness.py's `run`."""

import importlib
import pkgutil
import sys
from pathlib import Path

from bench import harness

SHARED = {"harness"}  # modules of bench/ that are not benchmarks


def main() -> None:
    here = Path(__file__).parent
    names = sorted(
        m.name
        for m in pkgutil.iter_modules([str(here)])
        if not m.name.startswith("_") and m.name not in SHARED
    )
    if len(sys.argv) < 2 or sys.argv[1] not in names:
        print(f"usage: python -m bench <{'|'.join(names)}> [options]", file=sys.stderr)
        sys.exit(2)
    name, args = sys.argv[1], sys.argv[2:]
    sys.argv = [f"bench {name}", *args]
    module = importlib.import_module(f"bench.{name}")
    if not hasattr(module, "run"):  # a helper module (bench/_recall_stages.py)
        print(f"bench/{name}.py is not a benchmark", file=sys.stderr)
        sys.exit(2)
    sys.exit(harness.run(name, module, args))


if __name__ == "__main__":
    main()
