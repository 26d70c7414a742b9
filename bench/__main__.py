"""Run a benchmark: `python -m bench <name> [options]` runs bench/<name>.py's main().

main() gets the remaining arguments if it takes one, else finds them in sys.argv."""

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path


def main() -> None:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))
    if len(sys.argv) < 2 or sys.argv[1] not in names:
        print(f"usage: python -m bench <{'|'.join(names)}> [options]", file=sys.stderr)
        sys.exit(2)
    name, args = sys.argv[1], sys.argv[2:]
    sys.argv = [f"bench {name}", *args]
    run = importlib.import_module(f"bench.{name}").main
    sys.exit((run(args) if inspect.signature(run).parameters else run()) or 0)


if __name__ == "__main__":
    main()
