"""`python -m bench <name> [args…]`: run bench/<name>.py (its `main(argv)`, or the module itself)."""

import importlib
import pkgutil
import runpy
import sys
from pathlib import Path


def available() -> list[str]:
    """Benchmark modules in this folder (private helpers start with '_')."""
    here = Path(__file__).parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))


def run(argv: list[str]) -> int:
    if not argv or argv[0] not in available():
        print(f"usage: python -m bench <name> [args]; names: {', '.join(available())}")
        return 2
    name, rest = argv[0], argv[1:]
    module = importlib.import_module(f"bench.{name}")
    if hasattr(module, "main"):
        return int(module.main(rest) or 0)
    sys.argv = [f"bench/{name}.py", *rest]
    runpy.run_module(f"bench.{name}", run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
