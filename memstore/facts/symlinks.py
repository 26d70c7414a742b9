"""Symbolic links inside the memory tree: never followed, never indexed, reported instead.

A link is a way around every boundary the folders draw: a month file in a bot's folder that
points into a person's folder would put that person's private facts in the bot's team-wide
memory. So nothing under MEMORY_ROOT is read through a link, file or folder, wherever it sits
(the root itself may be a link: that is where the deployment put memory). Readers open each
folder below the root with `O_NOFOLLOW` (`folder_open`, `file_read`), writers refuse a path
with a link on it (`link_on_path`), and `links_found` lists every link for Health to name.
Pure file-system calls; nothing here reads fact lines.
"""

import errno
import os
from pathlib import Path

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_LINK_ERRORS = {errno.ELOOP, errno.ENOTDIR, errno.EMLINK}


class LinkInMemory(FileNotFoundError):
    """A symbolic link sits on the path: for a reader, the file is not there."""


def folder_open(base: str, rel: str) -> int:
    """A descriptor of the folder `rel` under `base`, opened one name at a time without
    following a link; LinkInMemory if any name on the way is one (FileNotFoundError,
    NotADirectoryError as usual). The caller closes it."""
    fd = os.open(base, _DIR & ~os.O_NOFOLLOW)
    try:
        parts = rel.split("/") if rel else []
        for i, name in enumerate(parts):
            try:
                inner = os.open(name, _DIR, dir_fd=fd)
            except OSError as exc:
                if exc.errno in _LINK_ERRORS and os.path.islink(
                    os.path.join(base, *parts[: i + 1])
                ):
                    raise LinkInMemory(f"{rel}: a symbolic link is never followed") from None
                raise
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def file_read(base: str, rel: str) -> tuple[bytes, os.stat_result]:
    """The bytes and stat of the memory file `rel` under `base`, no link followed on the way
    (LinkInMemory if there is one: the file is not read)."""
    folder, _, name = rel.rpartition("/")
    parent = folder_open(base, folder)
    try:
        try:
            fd = os.open(name, _FILE, dir_fd=parent)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LinkInMemory(f"{rel}: a symbolic link is never followed") from None
            raise
    finally:
        os.close(parent)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(), os.fstat(fd)


def link_on_path(root: Path, path: Path) -> str | None:
    """The first symbolic link on `path` below `root` (relative to the root), or None; None
    too for a path outside the root (not memory)."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    here = root
    for name in rel.parts:
        here = here / name
        if os.path.islink(here):
            return str(here.relative_to(root))
    return None


def links_found(root: Path, limit: int = 100) -> list[str]:
    """Symbolic links anywhere under the root (files or folders, relative to it), in path
    order, at most `limit`; hidden folders (`.git`, `.trash`) are nobody's memory."""
    found: list[str] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(folder)
        for name in sorted([*dirs, *files]):
            if os.path.islink(here / name):
                found.append(str((here / name).relative_to(root)))
        if len(found) >= limit:
            break
    return sorted(found)[:limit]
