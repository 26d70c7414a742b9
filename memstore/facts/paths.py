"""Scopes, shards and where their files live under MEMORY_ROOT; strict validation of every name.

    agents/<bot>/memory/                       bot scope (one shard: the bot itself)
    users/<person>/memory/by-agent/<bot>/      user scope, one shard per writing bot
    projects/<project>/memory/by-agent/<bot>/  project scope, one shard per writing bot
    rooms/<room>/memory/by-agent/<bot>/        legacy room scope
    server/workspace/memory/by-agent/<bot>/    workspace (server) scope: one per workspace,
                                               one shard per writing app

Each shard folder holds `profile.md` and `log/YYYY-MM.md`. This module only computes and
lists paths; it never reads or writes file contents. A symbolic link is never listed (as a
scope, a shard or a file): `memstore.facts.symlinks` says why and finds them.
"""

import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from django.conf import settings

from memstore.errors import InvalidName
from memstore.vocabulary import (
    PERSON_PATTERN,
    PERSON_RULE,
    ROOM_PATTERN,
    ROOM_RULE,
    SCOPE_KINDS,
    SERVER_SCOPE_NAME,
    SLUG_PATTERN,
    SLUG_RULE,
    ScopeKind,
)

__all__ = ["SCOPE_KINDS", "ScopeKind"]

_SLUG_RE = re.compile(SLUG_PATTERN)
_PERSON_RE = re.compile(PERSON_PATTERN)
_ROOM_RE = re.compile(ROOM_PATTERN)
_MONTH_FILE_RE = re.compile(r"(\d{4})-(0[1-9]|1[0-2])\.md")

_TOP = {
    "bot": "agents",
    "user": "users",
    "project": "projects",
    "room": "rooms",
    "server": "server",
}
_KIND_OF_TOP = {top: kind for kind, top in _TOP.items()}


def check_slug(value: str, what: str = "bot") -> str:
    """A bot or project slug: lower-case letters, digits and '-', starting with a letter or digit."""
    if not isinstance(value, str) or not _SLUG_RE.fullmatch(value):
        raise InvalidName(
            f"{what.capitalize()} name {_show(value)} is not allowed: use {SLUG_RULE}."
        )
    return value


def check_person(value: str) -> str:
    """A person's name as used in folder names (their username)."""
    if not isinstance(value, str) or not _PERSON_RE.fullmatch(value) or ".." in value:
        raise InvalidName(f"Person name {_show(value)} is not allowed: use {PERSON_RULE}.")
    return value


def check_room(value: str) -> str:
    """A room id: letters, digits and . _ : -, starting with a letter or digit."""
    if not isinstance(value, str) or not _ROOM_RE.fullmatch(value) or ".." in value:
        raise InvalidName(f"Room id {_show(value)} is not allowed: use {ROOM_RULE}.")
    return value


def check_server(value: str) -> str:
    """The workspace scope's one name (a deployment is one workspace)."""
    if value != SERVER_SCOPE_NAME:
        raise InvalidName(
            f"The workspace scope is server:{SERVER_SCOPE_NAME}, not server:{_show(value)}."
        )
    return value


_CHECKS = {
    "bot": check_slug,
    "user": check_person,
    "project": lambda v: check_slug(v, "project"),
    "server": check_server,
}


@dataclass(frozen=True, slots=True, order=True)
class Scope:
    """Whose memory: a bot's own, a person's, a project's, a legacy room's, or the workspace's."""

    kind: ScopeKind
    name: str

    def __post_init__(self) -> None:
        if self.kind not in SCOPE_KINDS:
            raise InvalidName(f"Scope must be one of {', '.join(SCOPE_KINDS)}, not {self.kind!r}.")
        _CHECKS.get(self.kind, check_room)(self.name)

    @property
    def sharded(self) -> bool:
        return self.kind != "bot"

    @property
    def rel(self) -> str:
        """The scope's folder relative to MEMORY_ROOT (for shared scopes: the by-agent folder)."""
        if self.kind == "bot":
            return f"agents/{self.name}/memory"
        return f"{_TOP[self.kind]}/{self.name}/memory/by-agent"

    def shard(self, bot: str) -> "Shard":
        """The folder `bot` writes inside this scope."""
        return Shard(scope=self, bot=bot)

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    @classmethod
    def parse(cls, key: str) -> "Scope":
        """The scope a `kind:name` key names (as `str(scope)` writes it), or InvalidName."""
        if ":" not in (key or ""):
            raise InvalidName(f"A scope is written kind:name (bot:ada, user:sam), not {key!r}.")
        return cls(*scope_split(key))  # type: ignore[arg-type]


def scope_split(key: str) -> tuple[str, str]:
    """(kind, name) of a stored `kind:name` scope key, unchecked: the one place a key is taken
    apart (`Scope.parse` checks the name as well)."""
    kind, _, name = key.partition(":")
    return kind, name


def person_of_scope(key: str) -> str | None:
    """The person a `user:<person>` scope key is about; None for any other scope."""
    kind, name = scope_split(key)
    return name if kind == "user" else None


@dataclass(frozen=True, slots=True, order=True)
class Shard:
    """One writer's folder inside a scope; every file in it is written by `bot` alone."""

    scope: Scope
    bot: str

    def __post_init__(self) -> None:
        check_slug(self.bot)
        if self.scope.kind == "bot" and self.bot != self.scope.name:
            raise InvalidName(
                f"Bot {self.bot!r} cannot write bot {self.scope.name!r}'s own memory."
            )

    @property
    def key(self) -> str:
        """The shard as one value, `kind:name|bot` (a form field, a stored reference)."""
        return f"{self.scope}|{self.bot}"

    @classmethod
    def parse(cls, key: str) -> "Shard":
        """The shard a `key` value names, or InvalidName."""
        scope_key, sep, bot = (key or "").partition("|")
        if not sep:
            raise InvalidName(f"A shard is written kind:name|bot, not {key!r}.")
        return cls(scope=Scope.parse(scope_key), bot=bot)

    @property
    def rel(self) -> str:
        """The shard's folder relative to MEMORY_ROOT."""
        if self.scope.kind == "bot":
            return self.scope.rel
        return f"{self.scope.rel}/{self.bot}"

    def file_rel(self, *, tier_file: str, day: date | None = None) -> str:
        """The relative path of this shard's profile, or of its log file for `day`'s month."""
        if tier_file == "profile":
            return f"{self.rel}/profile.md"
        assert day is not None
        return f"{self.rel}/log/{day.year:04d}-{day.month:02d}.md"


@dataclass(frozen=True, slots=True)
class FileLocation:
    """What a memory file's relative path says about it."""

    shard: Shard
    tier_file: str  # "profile" or "log"
    month: str  # "YYYY-MM" for logs, "" for the profile

    @property
    def rel(self) -> str:
        """The file's path relative to MEMORY_ROOT."""
        if self.tier_file == "profile":
            return f"{self.shard.rel}/profile.md"
        return f"{self.shard.rel}/log/{self.month}.md"


def locate(rel: str) -> FileLocation | None:
    """The scope, shard and kind of file at this relative path, or None if it is no memory file."""
    parts = rel.split("/")
    try:
        if parts[0] == "agents" and len(parts) in (4, 5) and parts[2] == "memory":
            shard = Scope("bot", parts[1]).shard(parts[1])
            tail = parts[3:]
        elif (
            parts[0] in _KIND_OF_TOP
            and len(parts) in (6, 7)
            and parts[2:4] == ["memory", "by-agent"]
        ):
            shard = Scope(_KIND_OF_TOP[parts[0]], parts[1]).shard(parts[4])
            tail = parts[5:]
        else:
            return None
    except InvalidName:
        return None
    if tail == ["profile.md"]:
        return FileLocation(shard=shard, tier_file="profile", month="")
    if len(tail) == 2 and tail[0] == "log" and (match := _MONTH_FILE_RE.fullmatch(tail[1])):
        return FileLocation(shard=shard, tier_file="log", month=f"{match[1]}-{match[2]}")
    return None


def is_log_name(name: str) -> bool:
    """Whether a file name inside a shard's `log/` folder is a monthly log (`YYYY-MM.md`)."""
    return _MONTH_FILE_RE.fullmatch(name) is not None


def shard_files(root: Path, shard: Shard) -> list[str]:
    """Relative paths of the memory files that exist in one shard (profile first, logs by month)."""
    base = root / shard.rel
    found = []
    if os.path.isfile(base / "profile.md") and not os.path.islink(base / "profile.md"):
        found.append(f"{shard.rel}/profile.md")
    try:
        with os.scandir(base / "log") as entries:
            months = sorted(
                e.name
                for e in entries
                if _MONTH_FILE_RE.fullmatch(e.name) and e.is_file(follow_symlinks=False)
            )
    except (FileNotFoundError, NotADirectoryError):
        months = []
    found.extend(f"{shard.rel}/log/{name}" for name in months)
    return found


def scope_shards(root: Path, scope: Scope) -> list[Shard]:
    """The shards that exist on disk for a scope (a bot scope always has exactly its own)."""
    if scope.kind == "bot":
        return [scope.shard(scope.name)]
    try:
        with os.scandir(root / scope.rel) as entries:
            names = sorted(
                e.name
                for e in entries
                if e.is_dir(follow_symlinks=False) and _SLUG_RE.fullmatch(e.name)
            )
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [scope.shard(name) for name in names]


def all_scopes(root: Path) -> list[Scope]:
    """Every scope that has a folder under MEMORY_ROOT (names that fail validation are skipped)."""
    scopes = []
    for kind in SCOPE_KINDS:
        try:
            with os.scandir(root / _TOP[kind]) as entries:
                names = sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
        except FileNotFoundError:
            continue
        for name in names:
            try:
                scopes.append(Scope(kind, name))
            except InvalidName:
                continue
    return scopes


@dataclass(frozen=True, slots=True)
class Misnamed:
    """A folder that looks like memory but is not read, because its name is not allowed."""

    path: str  # relative to MEMORY_ROOT
    reason: str


def misnamed_folders(root: Path) -> list[Misnamed]:
    """Scope folders whose name fails validation and shard folders whose name is not a bot slug:
    their memory is skipped by every reader, so they are reported rather than ignored."""
    found: list[Misnamed] = []
    for kind in SCOPE_KINDS:
        for name in _folders(root / _TOP[kind]):
            try:
                scope = Scope(kind, name)
            except InvalidName as error:
                found.append(Misnamed(f"{_TOP[kind]}/{name}", error.message))
                continue
            if not scope.sharded:
                continue
            found += [
                Misnamed(
                    f"{scope.rel}/{bot}",
                    f"{bot!r} is not a bot slug ({SLUG_RULE}): its memory is not read.",
                )
                for bot in _folders(root / scope.rel)
                if not _SLUG_RE.fullmatch(bot)
            ]
    return found


def _folders(path: Path) -> list[str]:
    # Hidden folders (.git, .trash) are nobody's memory and not worth a report.
    try:
        with os.scandir(path) as entries:
            return sorted(
                e.name
                for e in entries
                if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
            )
    except (FileNotFoundError, NotADirectoryError):
        return []


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "...'"


def memory_root() -> Path:
    """The folder holding every memory file (settings.MEMORY_ROOT)."""
    return Path(settings.MEMORY_ROOT)
