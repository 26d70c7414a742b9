"""Reading settings from the environment: typed parsers that fail with a message naming the variable.

This module owns the parsing rules (booleans, lists, database URLs) and the embedded Postgres
fallback. It does not hold any setting values itself; `settings.py` does.
"""

import os
import secrets
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


def database_from_url(url: str) -> dict:
    """Django DATABASES['default'] from a postgres:// URL (host may be a socket folder)."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must start with postgres:// or postgresql://, not {parts.scheme!r}: "
            "Memory Console needs PostgreSQL."
        )
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
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


def embedded_database_url(var_dir: Path) -> str:
    """Start (or join) the embedded PostgreSQL 16 under var/pgdata and return its URL."""
    var_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # pgserver asks platformdirs for a runtime folder it never uses here; its warning is noise.
        warnings.simplefilter("ignore")
        import pgserver  # imported late: only needed when DATABASE_URL is unset

        server = pgserver.get_server(var_dir / "pgdata", cleanup_mode="stop")
    return server.get_uri()
