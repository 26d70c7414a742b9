"""What one version of a memory file is: its `Signature` (a stat, with a content digest when
the bytes were read too), a `Snapshot` of its text, and `ChangedOnDisk` when the file moved on
between a read and a write. It reads bytes and stats; it writes nothing and knows nothing about
fact lines (`memstore.facts.files` reads text and writes files with these)."""

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Signature:
    """What a stat says about a file's version: cheap to take, changes on every write."""

    mtime_ns: int
    size: int
    inode: int
    digest: str = ""  # content digest, when the bytes were read too

    @classmethod
    def of(cls, st: os.stat_result, data: bytes | None = None) -> "Signature":
        return cls(
            mtime_ns=st.st_mtime_ns,
            size=st.st_size,
            inode=st.st_ino,
            digest="" if data is None else content_digest(data),
        )


def content_digest(data: bytes) -> str:
    """A short digest of a file's bytes (not for security: to notice a change)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A file's text as read, with the signature it had; `text` is None if it did not exist."""

    text: str | None
    signature: Signature | None


class ChangedOnDisk(Exception):
    """The file changed between read and write; read it again and reapply the change."""


def signature(path: Path, *, with_digest: bool = False) -> Signature | None:
    """The file's current signature (with a content digest if asked), or None if it is missing."""
    try:
        if not with_digest:
            return Signature.of(os.stat(path))
        data, st = read_bytes(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return Signature.of(st, data)


def read_bytes(path: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes and the stat of the very file they were read from."""
    with open(path, "rb") as handle:
        st = os.fstat(handle.fileno())
        return handle.read(), st
