"""Swapping a new file in for the one read, in one atomic step, never over a hand edit: on Linux,
a write lease on the original and `renameat2(RENAME_EXCHANGE)`, checked after the swap and undone
if a hand edit landed first (`memstore.facts.files` says why, and falls back to check + rename
where `exchange_in` says the system can't). Nothing here creates, sweeps or fsyncs files.
"""

import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import time
from pathlib import Path

from memstore.facts.snapshots import ChangedOnDisk, Signature


def exchange_in(temp: Path, path: Path, expected: Signature, ours: os.stat_result) -> bool:
    """Swap `temp` in for `path` if `path` still is the `expected` version: True when done,
    False when the exchange is not available here (the caller falls back to check + rename);
    ChangedOnDisk when a hand edit came first (and is back in place)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:  # deleted by hand meanwhile: read again
        raise ChangedOnDisk(str(path)) from None
    leased = None
    try:
        # Under a write lease no one else has the original open, and anyone opening it now
        # waits until we let go: an editor writing in place can't slip in after our check.
        leased = _lease(fd)
        if leased is False or not _holds(fd, expected):
            raise ChangedOnDisk(str(path))
        try:
            if not exchange(temp, path):
                return False
        except FileNotFoundError:  # the original was deleted (or our temp swept): read again
            raise ChangedOnDisk(str(path)) from None
        # `temp` now names what `path` held an instant ago; `path` holds our new text.
        swapped_out = os.lstat(temp)
        if _same_file(swapped_out, os.fstat(fd)) and (
            fcntl.fcntl(fd, _F_GETLEASE) == fcntl.F_WRLCK if leased else _holds_at(temp, expected)
        ):
            return True
        # A hand edit landed first (a new file renamed over the original, or, without a lease,
        # bytes written into it), or someone opened the original while we held it (an editor
        # about to write: they get it once we let go, so it must be back in place by then).
        exchange(temp, path)  # put the hand edit (or the original) back
        if not _same_file(os.lstat(temp), ours):
            # Someone replaced our file in the instant it was in place: theirs is the newest.
            exchange(temp, path)
        raise ChangedOnDisk(str(path))
    finally:
        if leased:
            fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_UNLCK)
        os.close(fd)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_ino, a.st_dev) == (b.st_ino, b.st_dev)


def _holds(fd: int, expected: Signature) -> bool:
    """Whether the open file still is the version read (same stat and bytes)."""
    st = os.fstat(fd)
    os.lseek(fd, 0, os.SEEK_SET)
    with os.fdopen(os.dup(fd), "rb") as handle:
        data = handle.read()
    return Signature.of(st, data if expected.digest else None) == expected


def _holds_at(path: Path, expected: Signature) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        return _holds(fd, expected)
    finally:
        os.close(fd)


_LINUX = hasattr(os, "uname") and os.uname().sysname == "Linux"
_F_SETLEASE = getattr(fcntl, "F_SETLEASE", 1024)
_F_GETLEASE = getattr(fcntl, "F_GETLEASE", 1025)
_F_SETSIG = getattr(fcntl, "F_SETSIG", 10)


def _lease(fd: int, *, tries: int = 40) -> bool | None:
    """Take a write lease (granted only if no one else has the file open): True when held,
    False if someone kept it open (a reader for a moment, or an editor writing), None when this
    system or file does not grant leases (not Linux, not our file, a network file system)."""
    if not _LINUX:
        return None
    # A lease break signals its holder (SIGIO by default, which would end the process); ask for
    # SIGURG, ignored by default: we hold the lease only while reading.
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, _F_SETSIG, signal.SIGURG)
    for _ in range(tries):
        try:
            fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_WRLCK)
            return True
        except BlockingIOError:
            time.sleep(0.001)  # a reader closes in microseconds; an editor takes longer
        except OSError:
            return None
    return False


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_NO_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP}


def _renameat2():
    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None


_RENAMEAT2 = _renameat2() if _LINUX else None


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two names in one folder; False where the system can't."""
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(b))
