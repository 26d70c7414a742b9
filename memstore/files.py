"""Reading memory files and replacing them atomically, refusing to overwrite a hand edit.

A write goes to a temp file in the same folder (so the rename stays on one filesystem), is
fsynced, and then renamed over the original: a reader, or a crash, sees the old file or the
new one, never half of each. Just before the rename the original is read again and its stat
signature and content digest are compared with those taken when it was read; a difference
means someone edited it meanwhile, and `ChangedOnDisk` tells the caller to read again. (The
digest matters: file timestamps can be coarse, so a same-size edit may keep the same stat.)
This module knows nothing about fact lines.
"""

import contextlib
import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from memstore.errors import UnreadableFile


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


def read_snapshot(path: Path) -> Snapshot:
    """The file's text (UTF-8) and signature; raises UnreadableFile for bytes that are not UTF-8."""
    try:
        data, st = read_bytes(path)
    except (FileNotFoundError, NotADirectoryError):
        return Snapshot(text=None, signature=None)
    return Snapshot(text=decode(data, path), signature=Signature.of(st, data))


def decode(data: bytes, path: Path | str) -> str:
    """Bytes as UTF-8 text (a BOM stays in the text so it round-trips)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(
            f"{path} is not valid UTF-8 (byte {exc.start}); it is left as it is. "
            "Fix or re-save it as UTF-8 to use it."
        ) from None


def write_atomic(path: Path, text: str, *, expected: Signature | None) -> None:
    """Replace (or create) the file with `text` if it still has the `expected` signature."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temp, "xb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if expected is None:
            # link() refuses to replace an existing file: a file someone created meanwhile wins.
            try:
                os.link(temp, path)
            except FileExistsError:
                raise ChangedOnDisk(str(path)) from None
        else:
            if signature(path, with_digest=bool(expected.digest)) != expected:
                raise ChangedOnDisk(str(path))
            os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk too.
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
