"""How a person runs a management command in this installation: the one spelling every hint,
error and page uses (`manage_command("bots", "token", "scout")`).

- `MEMORY_CONSOLE_MANAGE` when set: the container image sets it to its `exec` form;
- `./dev manage` when running from a checkout (the repository's `dev` script beside the code);
- `memory-console manage` otherwise (the installed package).
"""

import os
from functools import cache
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


@cache
def _prefix() -> str:
    if spelled := os.environ.get("MEMORY_CONSOLE_MANAGE", "").strip():
        return spelled
    if (_CHECKOUT / "dev").is_file() and (_CHECKOUT / "manage.py").is_file():
        return "./dev manage"
    return "memory-console manage"


def manage_command(*args: str) -> str:
    """The command line that runs `args` here, e.g. `./dev manage bots token scout`."""
    return " ".join((_prefix(), *args))
