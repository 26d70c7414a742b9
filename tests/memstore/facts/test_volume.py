"""A memory volume that refuses writes (issue 28): a small tmpfs filled up, then mounted
read-only. Every write answers MemoryVolumeFull or MemoryVolumeReadOnly with nothing
half-written (no temp file, no torn line, no fact without its history line); every acknowledged
fact is on disk; reads keep working. Needs root (to mount); skipped elsewhere."""

import errno
import os
import subprocess
from datetime import date
from pathlib import Path

import pytest

from memstore.errors import MemoryVolumeFull, MemoryVolumeReadOnly
from memstore.facts import markdown
from memstore.facts import volume as memory_volume
from memstore.facts.history import history_read
from memstore.facts.paths import Scope
from memstore.store.selectors import facts_list
from memstore.store.services import fact_remember

pytestmark = pytest.mark.django_db

ADA = Scope("bot", "ada")
DAY = date(2026, 11, 2)


def _mount(folder: Path, *options: str) -> bool:
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs", folder])
    return done.returncode == 0


@pytest.fixture
def volume(tmp_path, settings):
    """A 3 MB tmpfs as MEMORY_ROOT."""
    root = tmp_path / "volume"
    root.mkdir()
    if os.geteuid() != 0 or not _mount(root, "size=3m", "mode=0700"):
        pytest.skip("mounting a tmpfs needs root")
    settings.MEMORY_ROOT = root
    yield root
    subprocess.run(["umount", "-l", root], check=False)


def _fill(root: Path, leave: int) -> None:
    """Take the volume's space down to about `leave` free bytes with a file that is not memory."""
    free = memory_volume.volume_state(root).free_bytes
    with open(root / "ballast.bin", "wb") as handle:
        handle.write(b"\0" * max(0, free - leave))


def _no_debris(root: Path) -> None:
    temps = [p for p in root.rglob("*.tmp")]
    assert temps == []
    for path in root.rglob("*.md"):
        assert path.read_bytes().endswith(b"\n"), path  # no torn last line
    for path in root.rglob("history.jsonl"):
        assert path.read_bytes().endswith(b"\n"), path


def test_a_full_volume_refuses_writes_and_loses_nothing(volume):
    _fill(volume, leave=350 * 1024)
    saved: list[str] = []
    with pytest.raises(MemoryVolumeFull) as refused:
        for n in range(10_000):
            text = f"Volume fact {n:05d} " + "x" * 400
            fact_remember(shard=ADA.shard("ada"), text=text, day=DAY, via="api")
            saved.append(markdown.normalise_spaces(text))
    assert refused.value.status == 507 and refused.value.code == "memory_volume_full"
    assert len(saved) > 40  # it took writes until the headroom was reached
    on_disk = {f.text for f in facts_list(scopes=[ADA], limit=20_000).items}
    assert set(saved) == on_disk  # every acknowledged write is there, the refused one is not
    history = [c for c in history_read(volume, ADA.shard("ada")) if c.op == "add"]
    assert len(history) == len(saved)
    _no_debris(volume)
    assert memory_volume.volume_state(volume).problem == "memory_volume_full"
    # Space freed: writes work again, with no one restarting anything.
    (volume / "ballast.bin").unlink()
    fact_remember(shard=ADA.shard("ada"), text="After the volume was freed", day=DAY)
    assert memory_volume.volume_state(volume).problem == ""


def test_a_read_only_volume_refuses_writes_and_keeps_reads(volume):
    fact_remember(shard=ADA.shard("ada"), text="Written before the remount", day=DAY)
    before = {p: p.read_bytes() for p in volume.rglob("*") if p.is_file()}
    subprocess.run(["mount", "-o", "remount,ro", volume], check=True)
    try:
        assert memory_volume.volume_state(volume).problem == "memory_volume_read_only"
        with pytest.raises(MemoryVolumeReadOnly) as refused:
            fact_remember(shard=ADA.shard("ada"), text="Refused by the volume", day=DAY)
        assert (refused.value.status, refused.value.code) == (503, "memory_volume_read_only")
        assert [f.text for f in facts_list(scopes=[ADA]).items] == ["Written before the remount"]
        assert {p: p.read_bytes() for p in volume.rglob("*") if p.is_file()} == before
    finally:
        subprocess.run(["mount", "-o", "remount,rw", volume], check=True)


@pytest.mark.parametrize(
    "code,error",
    [(errno.ENOSPC, MemoryVolumeFull), (errno.EDQUOT, MemoryVolumeFull)]
    + [(errno.EROFS, MemoryVolumeReadOnly)],
)
def test_the_volume_errors_are_translated_where_files_are_written(tmp_path, code, error):
    with pytest.raises(error), memory_volume.volume_errors(tmp_path):
        raise OSError(code, os.strerror(code))
    with pytest.raises(FileNotFoundError), memory_volume.volume_errors(tmp_path):
        raise FileNotFoundError(errno.ENOENT, "other errors pass")


def test_a_history_line_the_volume_cuts_short_is_removed(tmp_path, monkeypatch):
    # ENOSPC after part of the payload: the file is cut back to where it was.
    path = tmp_path / "history.jsonl"
    path.write_bytes(b'{"op": "add"}\n')
    real_write = os.write

    def short(fd, data):
        real_write(fd, data[:5])
        raise OSError(errno.ENOSPC, "No space left on device")

    from memstore.facts import history

    monkeypatch.setattr(history.os, "write", short)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        with pytest.raises(OSError):
            history._append_whole(fd, b'{"op": "remove"}\n')
    finally:
        os.close(fd)
    assert path.read_bytes() == b'{"op": "add"}\n'


def test_on_a_read_only_volume_a_refusal_is_said_and_a_pause_still_holds(volume, django_user_model):
    """Neither log a write may leave behind (the failure log, a person's controls record) turns
    a read-only volume into a 500: the call answers the volume's refusal, and a person's
    pause, already in force, stands."""
    from memstore.calls.facts import bot_remember
    from memstore.registry.bots import bot_create
    from memstore.registry.people import person_add
    from memstore.rooms.context import context_open
    from memstore.rules.controls import memory_pause, person_controls

    bot_create(slug="ada")
    django_user_model.objects.create_user("ann")
    person_add(name="ann", username="ann")
    subprocess.run(["mount", "-o", "remount,ro", volume], check=True)
    try:
        ctx = context_open(bot="ada", room_id="team", room_kind="group")
        with pytest.raises(MemoryVolumeReadOnly):
            bot_remember(ctx=ctx, text="Refused by the volume")
        memory_pause(person="ann", by="ann", via="console")
        assert person_controls(person="ann").paused
    finally:
        subprocess.run(["mount", "-o", "remount,rw", volume], check=True)
