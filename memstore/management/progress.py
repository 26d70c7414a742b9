"""A one-line progress bar for long commands (reindex, benchmarks): done/total, rate and ETA.

Writes to a stream (stderr by default) and redraws at most ten times a second; when the stream
is not a terminal it prints a plain line at every tenth of the way instead of redrawing.
"""

import sys
import time
from typing import TextIO


class ProgressBar:
    """Call `update(done, total)` as work advances and `finish()` at the end."""

    def __init__(self, *, unit: str = "files", stream: TextIO | None = None, width: int = 30):
        self.unit = unit
        self.stream = stream or sys.stderr
        self.width = width
        self.started = time.monotonic()
        self._drawn_at = 0.0
        self._tenth = -1
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = ""

    def update(self, done: int, total: int) -> None:
        """Show that `done` of `total` units are finished."""
        now = time.monotonic()
        tenth = 10 * done // total if total else 10
        if self._tty:
            if now - self._drawn_at < 0.1 and done < total:
                return
            self.stream.write("\r" + self.line(done, total, now))
        else:
            if tenth == self._tenth:
                return
            self.stream.write(self.line(done, total, now) + "\n")
        self._tenth, self._drawn_at = tenth, now
        self.stream.flush()

    def line(self, done: int, total: int, now: float | None = None) -> str:
        """The bar as text, e.g. `[#####.....] 5,000/10,000 files  812 files/s  ETA 6s`."""
        elapsed = max((now or time.monotonic()) - self.started, 1e-9)
        share = done / total if total else 1.0
        filled = int(self.width * share)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 else 0.0
        return (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {done:,}/{total:,} {self.unit}"
            f"  {rate:,.0f} {self.unit}/s  ETA {_duration(eta)}"
        )

    def note(self, text: str) -> None:
        """A message on its own line (ends a redrawn bar first)."""
        self.stream.write(("\n" if self._tty and self._drawn_at else "") + text + "\n")
        self._drawn_at = 0.0
        self.stream.flush()

    def finish(self) -> None:
        """End the bar's line."""
        if self._tty and self._drawn_at:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn_at = 0.0


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m{seconds:02d}s"
