"""The README's configuration table: one table (no blank line breaking it) naming every
environment variable the settings, `memory-console serve` and `./dev` read."""

import re

from tests.helpers import REPO


def _table() -> list[str]:
    section = REPO.joinpath("README.md").read_text().split("## Configuration", 1)[1]
    section = section.split("\n## ", 1)[0]
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| variable"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    assert not any(line.startswith("|") for line in lines[end:]), "the table is broken in two"
    return lines[start:end]


def test_every_environment_variable_is_in_one_table():
    documented = set()
    for row in _table()[2:]:
        documented |= set(re.findall(r"`([A-Z_]+)`", row.split("|")[1]))
    read = set()
    for module in ("settings.py", "config.py", "cli.py", "launcher.py"):
        code = REPO.joinpath("memoryconsole", module).read_text()
        read |= set(re.findall(r"""(?:environ\.get|env_[a-z]+)\(\s*["']([A-Z_]+)["']""", code))
    read |= set(re.findall(r"\$\{([A-Z]+):-", REPO.joinpath("dev").read_text()))
    read -= {"VENV", "PYTHON"}  # ./dev's own choice of environment, for contributors and CI
    assert {"MEMORY_CONSOLE_HOME", "VAR_DIR", "HOST", "PORT", "DATABASE_URL"} <= read
    assert read - documented == set()
