"""Reading memory files and replacing them atomically, never overwriting a hand edit.

A write goes to a temp file in the same folder (so the rename stays on one filesystem), is
fsynced, and then takes the original's place: a reader, or a crash, sees the old file or the
new one, never half of each.

Where Linux offers `renameat2(RENAME_EXCHANGE)` (ext4, xfs, btrfs, tmpfs), the original is
opened and a write lease taken on it (granted only if no one else has it open; anyone opening
it afterwards waits until we let go), its bytes compared with what we read, and then the new
file is *exchanged* with it in one atomic step. If what came out is not the file we checked (an
editor renamed a new file over it) or someone tried to open it meanwhile (an editor about to
write in place), we exchange back, which puts the hand edit in place again, and
`ChangedOnDisk` tells the caller to read again and reapply. So both editors that write in place
and editors that rename a new file over the original are caught, with no window between the
last check and the rename. What remains: for the microseconds between an exchange and the
exchange back our version is in place, so an editor that reads and saves within them builds on
it and the hand edit before is lost; a writer killed in that instant leaves that hand edit in
its temp file (swept later); without a lease (a file we do not own, a file system that grants none) the swapped-out
file's bytes are compared instead, so an in-place write still in progress after the exchange is
not seen.

Elsewhere (macOS, file systems without the exchange), the original is checked just
before an `os.replace`: a hand edit saved in the instant between that check and the rename is
overwritten, as before.

After the rename, the version swapped out is removed and the folder fsynced (the rename is
durable only then). `write_atomic` does both before it returns; `write_settling` returns right
after the rename and does them on a worker thread, for a writer that has more to do meanwhile
(its history line and index rows) and calls `settle()` before it says the write was done.

Temp files are named `.<file>.<host>-<pid>.<random>.tmp`; every write sweeps its folder of ours
whose writer died (same host) or that are older than `STALE_TEMP_SECONDS`.

Every memory file is created here, and every memory folder: files 0600 and folders 0700 (only
the service's own user reads memory), or 0640 and 0750 when `MEMORY_FILE_MODE=0640` lets a
shared volume's group read them; set exactly, whatever the umask. Appended logs (history, the
failure log, the controls audit) and note versions use `file_open` for the same modes. A file
or folder that exists already keeps its mode (a rewritten file takes the new one). This module
knows nothing about fact lines.

A volume that refuses writes (full, over quota, mounted read-only) is said as such:
`write_atomic` first checks the volume has room for the new file and `HEADROOM_BYTES` more (the
history line and the index's own files come after it), and any ENOSPC/EDQUOT/EROFS on the way
becomes `MemoryVolumeFull` or `MemoryVolumeReadOnly` with the temp file gone, so a refused write
leaves the original as it was (`memstore.facts.volume`, whose `volume_state` Health shows).
"""

import contextlib
import hashlib
import os
import re
import secrets
import socket
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from memstore.errors import UnreadableFile
from memstore.facts.exchange import exchange_in
from memstore.facts.snapshots import (
    ChangedOnDisk,
    Signature,
    Snapshot,
    content_digest,
    read_bytes,
    signature,
)
from memstore.facts.symlinks import link_on_path
from memstore.facts.volume import HEADROOM_BYTES, room_check, volume_errors

__all__ = [
    "ChangedOnDisk",
    "Signature",
    "Snapshot",
    "content_digest",
    "read_bytes",
    "signature",
]


def file_mode() -> int:
    """The mode memory files are created with (settings.MEMORY_FILE_MODE: 0o600 or 0o640)."""
    return settings.MEMORY_FILE_MODE


def folder_mode() -> int:
    """The mode memory folders are created with: the file mode plus search where read is."""
    mode = file_mode()
    return mode | (mode & 0o444) >> 2


def folder_make(folder: Path) -> None:
    """Create the folder and any missing parents with the memory folder mode."""
    if folder.is_dir():
        return
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    mode = folder_mode()
    for path in reversed(missing):
        try:
            os.mkdir(path, mode)
        except FileExistsError:
            continue
        os.chmod(path, mode)  # exactly the mode, whatever the umask


def file_open(path: Path, flags: int) -> int:
    """A descriptor for `path` opened with `flags`; created (with its folder) with the memory
    file mode if missing. With O_EXCL in `flags`, an existing file raises FileExistsError."""
    folder_make(path.parent)
    mode = file_mode()
    while True:
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            if flags & os.O_EXCL:
                raise
            try:
                return os.open(path, flags)
            except FileNotFoundError:  # removed in between: create it after all
                continue
        os.fchmod(fd, mode)
        return fd


def read_snapshot(path: Path) -> Snapshot:
    """The file's text (UTF-8) and signature; raises UnreadableFile for bytes that are not
    UTF-8, and for a memory file with a symbolic link on its path (never followed, so never
    written through: a write would copy what the link points at into this file)."""
    if link := link_on_path(Path(settings.MEMORY_ROOT), path):
        raise UnreadableFile(
            f"{link} is a symbolic link; links inside memory are never followed, so this file "
            "is left as it is. Replace the link with a real file or folder to use it."
        )
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


STALE_TEMP_SECONDS = 10
_HOST = hashlib.blake2b(socket.gethostname().encode(), digest_size=3).hexdigest()
_TEMP_RE = re.compile(r"^\..+\.(?:(?P<host>[0-9a-f]{6})-)?(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")


def write_atomic(path: Path, text: str, *, expected: Signature | None) -> os.stat_result:
    """Replace (or create) the file with `text` if it still has the `expected` signature, and
    return the stat of the file written once it is durable; MemoryVolumeFull /
    MemoryVolumeReadOnly (the original untouched) if the volume refuses."""
    return write_settling(path, text, expected=expected, later=False).settle()


@dataclass(slots=True)
class Replaced:
    """A file just replaced by `write_settling`: `stat` is the new file's; `settle()` waits
    until the write is durable (the swapped-out version removed and the folder fsynced)."""

    path: Path
    stat: os.stat_result
    _temp: Path
    _pending: Future | None = None

    def settle(self) -> os.stat_result:
        """Wait until the new file is durable (raises what the folder's fsync raised)."""
        with volume_errors(self.path):
            if self._pending is None:
                _settle(self.path, self._temp)
            else:
                self._pending.result()
        return self.stat


def write_settling(
    path: Path, text: str, *, expected: Signature | None, later: bool = True
) -> Replaced:
    """`write_atomic` up to the rename: the file holds `text` (fsynced) when this returns, and
    with `later` the rest (removing the swapped-out version, the folder's fsync that makes the
    rename durable) runs on a worker thread meanwhile. The caller must `settle()` the result
    before it says the write was done; a writer then overlaps the folder's fsync with its index
    statement."""
    data = text.encode("utf-8")
    with volume_errors(path):
        room_check(path.parent, len(data) + HEADROOM_BYTES)
        folder_make(path.parent)
        temps_sweep(path.parent)
        ours, temp = _write_replacing(path, data, expected)
    replaced = Replaced(path=path, stat=ours, _temp=temp)
    if later:
        replaced._pending = _settler().submit(_settle, path, temp)
    return replaced


def write_back(path: Path, snapshot: "Snapshot") -> None:
    """Put a file back as `snapshot` had it (gone if it did not exist), undoing our own write
    whose follow-up (its history line) the volume refused; best effort, without the room check:
    the bytes of our version were freed first."""
    with contextlib.suppress(OSError, ChangedOnDisk):
        if snapshot.text is None:
            os.unlink(path)
        else:
            now = signature(path, with_digest=True)
            _settle(path, _write_replacing(path, snapshot.text.encode("utf-8"), now)[1])


def _write_replacing(
    path: Path, data: bytes, expected: Signature | None
) -> tuple[os.stat_result, Path]:
    # The new file's stat and the temp name to remove then (see `_settle`): after an exchange it
    # holds the version swapped out, after a link the second name of ours.
    temp = path.with_name(f".{path.name}.{_HOST}-{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # The temp file becomes the file: it is created with the memory file mode.
        with os.fdopen(file_open(temp, os.O_WRONLY | os.O_EXCL), "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            ours = os.fstat(handle.fileno())
        if expected is None:
            # link() refuses to replace an existing file: a file someone created meanwhile wins.
            try:
                os.link(temp, path)
            except (FileExistsError, FileNotFoundError):
                raise ChangedOnDisk(str(path)) from None
        elif not exchange_in(temp, path, expected, ours):
            # No atomic exchange here: check, then rename (a hand edit in between is lost).
            if signature(path, with_digest=bool(expected.digest)) != expected:
                raise ChangedOnDisk(str(path))
            os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return ours, temp


def _settle(path: Path, temp: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)
    _fsync_dir(path.parent)


# Threads are made as writes need them, up to this many: about as many as a server's request
# threads write at once, so one save's fsync never waits in a queue behind another's.
SETTLE_THREADS = 32
_settlers: tuple[int, ThreadPoolExecutor] | None = None
_settlers_lock = threading.Lock()


def _settler() -> ThreadPoolExecutor:
    # One pool per process: a pool made before a fork has no threads in the child.
    global _settlers
    with _settlers_lock:
        if _settlers is None or _settlers[0] != os.getpid():
            pool = ThreadPoolExecutor(SETTLE_THREADS, thread_name_prefix="memstore-settle")
            _settlers = (os.getpid(), pool)
        return _settlers[1]


def temps_sweep(folder: Path) -> int:
    """Remove our temp files left in `folder` by writers that died (or long stale); how many."""
    removed = 0
    now = time.time()
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            found = _TEMP_RE.match(entry.name)
            if not found:
                continue
            try:
                age = now - entry.stat(follow_symlinks=False).st_mtime
            except FileNotFoundError:
                continue
            mine = found["host"] == _HOST
            if age > STALE_TEMP_SECONDS or (mine and not _alive(int(found["pid"]))):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk too.
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
