"""Run one benchmark: `python -m bench <name> [args]` calls `main()` of bench/<name>.py with
`sys.argv` set to `[name, *args]`, so each module parses its own arguments.

    python -m bench               lists the benchmarks
    python -m bench sync --help   the foundation's index benchmarks (docs/benchmarks.md)
"""

import importlib
import pkgutil
import sys
from pathlib import Path


def _names() -> list[str]:
    here = str(Path(__file__).resolve().parent)
    return sorted(m.name for m in pkgutil.iter_modules([here]) if not m.name.startswith("_"))


def main() -> None:
    names = _names()
    if len(sys.argv) < 2 or sys.argv[1] in {"-h", "--help"}:
        print(__doc__.strip())
        print("\nbenchmarks: " + ", ".join(names))
        return
    name = sys.argv[1]
    if name not in names:
        sys.exit(f"No benchmark {name!r}; choose one of: {', '.join(names)}")
    sys.argv = [name, *sys.argv[2:]]
    importlib.import_module(f"bench.{name}").main()


if __name__ == "__main__":
    main()
