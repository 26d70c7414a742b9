"""An isolated workspace for measurements and screenshots: its own database and MEMORY_ROOT.

The database is a fresh one on the same server (named for the caller, so it never collides with
the test database or the one `./dev serve` uses), migrated, and dropped afterwards.
"""

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def log(message: str) -> None:
    """Progress on stderr, so stdout stays for results."""
    print(message, file=sys.stderr, flush=True)


@contextmanager
def isolated_workspace(name: str) -> Iterator[Path]:
    """Set up Django with a throwaway database `name` and an empty MEMORY_ROOT; yield the root."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryconsole.settings")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    with tempfile.TemporaryDirectory(prefix=f"{name}-") as folder:
        root = Path(folder) / "memory"
        root.mkdir()
        settings.MEMORY_ROOT = root
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        connection.settings_dict.setdefault("TEST", {})["NAME"] = name
        old_name = connection.settings_dict["NAME"]
        log(f"creating database {name}")
        connection.creation.create_test_db(verbosity=0, autoclobber=True)
        try:
            yield root
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)
