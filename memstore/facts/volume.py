"""The memory volume's room for writes: whether it takes them (free space, read-only), and its
own refusals (ENOSPC, EDQUOT, EROFS, EACCES) turned into MemoryVolumeFull / MemoryVolumeReadOnly,
so a write on a full or read-only volume says so and the API answers 507 / 503."""

import contextlib
import errno
import os
from dataclasses import dataclass
from pathlib import Path

from memstore.errors import MemoryVolumeFull, MemoryVolumeReadOnly

HEADROOM_BYTES = 256 * 1024  # kept free past the new file: its history line, the next writes
FULL_BELOW_BYTES = 1024 * 1024  # Health calls the volume full below this (writes soon refused)
_FULL = {errno.ENOSPC, errno.EDQUOT}
_REFUSED = {errno.EROFS, errno.EACCES, errno.EPERM}  # a read-only mount, or one we may not write


@dataclass(frozen=True, slots=True)
class VolumeState:
    """What the memory volume can take: free and total bytes, and whether it takes writes."""

    free_bytes: int
    total_bytes: int
    read_only: bool

    @property
    def full(self) -> bool:
        return self.free_bytes < FULL_BELOW_BYTES

    @property
    def problem(self) -> str:
        """ "" when writes can go ahead, else memory_volume_read_only or memory_volume_full."""
        if self.read_only:
            return MemoryVolumeReadOnly.code
        return MemoryVolumeFull.code if self.full else ""


def volume_state(folder: Path) -> VolumeState:
    """The volume holding `folder` (or its nearest existing parent), from one statvfs."""
    probe = Path(folder)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    st = os.statvfs(probe)
    read_only = bool(st.f_flag & os.ST_RDONLY) or not os.access(probe, os.W_OK)
    return VolumeState(
        free_bytes=st.f_bavail * st.f_frsize,
        total_bytes=st.f_blocks * st.f_frsize,
        read_only=read_only,
    )


def room_check(folder: Path, need: int) -> None:
    """MemoryVolumeReadOnly / MemoryVolumeFull unless the volume can take `need` more bytes."""
    state = volume_state(folder)
    if state.read_only:
        raise _read_only(folder)
    if state.free_bytes < need:
        raise _full(folder, state.free_bytes)


@contextlib.contextmanager
def volume_errors(path: Path):
    """Turn the volume's own refusals (ENOSPC, EDQUOT, EROFS, EACCES) inside the block into
    MemoryVolumeFull / MemoryVolumeReadOnly; other OSErrors pass unchanged."""
    try:
        yield
    except OSError as exc:
        if exc.errno in _FULL:
            raise _full(path, None) from None
        if exc.errno in _REFUSED:
            raise _read_only(path) from None
        raise


def _full(path: Path, free: int | None) -> MemoryVolumeFull:
    left = "" if free is None else f" ({free // 1024} KiB left)"
    return MemoryVolumeFull(
        f"The memory volume is full{left}: nothing was written. Reading memory still works; "
        "free space on the volume holding MEMORY_ROOT, then try again.",
        detail={"free_bytes": free} if free is not None else {},
    )


def _read_only(path: Path) -> MemoryVolumeReadOnly:
    return MemoryVolumeReadOnly(
        "The memory volume is read-only: nothing was written. Reading memory still works; "
        "remount the volume holding MEMORY_ROOT read-write, then try again."
    )
