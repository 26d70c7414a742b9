"""How far memory is behind its files, in numbers: the one count every answer that may be
stale or by words only reads (recall, the prompt, `GET /health/memory`, the console's progress,
`/metrics`), so that they all say the same thing.

Owns: `memory_backlog`, which gives
- `indexing`: facts in files changed on disk that the index does not hold yet, because a sync
  too large for a read's budget is finishing them in the background (`index.behind`; counted in
  this process, which is the one that handed them over), and since when;
- `words_only`: indexed facts with no vector under the current model yet: found by their words
  only until the worker makes it (`vectors.vectors_waiting` over some scopes, or one scan of the
  index for the whole server, remembered for RECHECK_S), and, for the whole server, since when
  the oldest file holding one was last synced;
and `Backlog.sentence()`, the words every answer uses ("2,511 facts still being indexed; words
only for 23,838 facts").

Does not: make vectors or sync files (the worker and `index.behind` do), or decide what an
answer does about a backlog.
"""

import time
from dataclasses import dataclass

from django.db import connection

from memstore.index.behind import behind_facts
from memstore.recall.vectors import embedder_current, vectors_waiting

RECHECK_S = 5.0  # the whole server's words-only count is scanned at most this often

_SERVER_SQL = """
    SELECT count(DISTINCT f.fact_id),
           count(DISTINCT f.fact_id) FILTER (WHERE e.fact_id IS NULL),
           min(m.synced_at) FILTER (WHERE e.fact_id IS NULL)
    FROM memstore_fact f
    JOIN memstore_memoryfile m ON m.id = f.file_id
    LEFT JOIN memstore_embedding e ON e.model = %s AND e.fact_id = f.fact_id
"""
_server: dict[tuple[str, str], tuple[float, tuple[int, int, float | None]]] = {}


@dataclass(frozen=True, slots=True)
class Backlog:
    """What the index and the vectors have still to catch up with, and since when."""

    indexing: int = 0  # facts on disk the index does not hold yet (being indexed)
    indexing_since: float | None = None  # when the oldest of them was handed over (unix time)
    uncounted_files: int = 0  # files being indexed whose facts are not counted yet
    words_only: int = 0  # indexed facts without a vector yet: found by their words only
    words_only_since: float | None = None  # the oldest such fact's file last synced (server)
    facts: int | None = None  # indexed facts (the whole server's; None when not counted)

    @property
    def behind(self) -> bool:
        """Whether anything is still being caught up with."""
        return bool(self.indexing or self.uncounted_files or self.words_only)

    def age_seconds(self, now: float | None = None) -> float:
        """How long the oldest part of the backlog has waited (0 when none waits)."""
        now = time.time() if now is None else now
        since = [s for s in (self.indexing_since, self.words_only_since) if s is not None]
        return round(max(0.0, now - min(since)), 1) if since else 0.0

    def sentence(self) -> str:
        """The backlog in words, "" when there is none."""
        parts = []
        if self.indexing:
            parts.append(f"{_facts(self.indexing)} still being indexed")
        elif self.uncounted_files:  # handed over a moment ago: counted before they are synced
            files = self.uncounted_files
            parts.append(
                f"the facts of {files:,} file{'' if files == 1 else 's'} still being indexed"
            )
        if self.words_only:
            parts.append(f"words only for {_facts(self.words_only)}")
        return "; ".join(parts)


def _facts(count: int) -> str:
    return f"{count:,} fact" + ("" if count == 1 else "s")


def memory_backlog(
    *,
    keys: list[str] | None = None,
    versions: dict[str, tuple] | None = None,
    meaning: bool = True,
) -> Backlog:
    """The backlog of these scope keys (the whole server without): facts being indexed, and
    with `meaning` (and a model) facts waiting for a vector (`versions`: the scopes' versions
    when the caller read them already)."""
    indexing, uncounted, since = behind_facts(keys)
    behind = {"indexing": indexing, "indexing_since": since, "uncounted_files": uncounted}
    embedder = embedder_current() if meaning else None
    if embedder is None:
        return Backlog(**behind)
    if keys is not None:
        waiting = vectors_waiting(embedder.name, keys, versions) if keys else 0
        return Backlog(**behind, words_only=waiting)
    facts, waiting, oldest = _server_counts(embedder.name)
    return Backlog(
        **behind,
        words_only=waiting,
        words_only_since=oldest,
        facts=facts,
    )


def _server_counts(model: str) -> tuple[int, int, float | None]:
    """The whole index's facts, those without a vector and the oldest one's file's last sync
    (one scan, remembered for RECHECK_S)."""
    key = (connection.settings_dict["NAME"], model)
    now = time.monotonic()
    held = _server.get(key)
    if held is not None and now - held[0] < RECHECK_S:
        return held[1]
    with connection.cursor() as cursor:
        cursor.execute(_SERVER_SQL, [model])
        facts, waiting, oldest = cursor.fetchone()
    counts = (facts, waiting, oldest.timestamp() if oldest is not None else None)
    _server[key] = (now, counts)
    return counts


def memory_backlog_forget() -> None:
    """Forget the remembered server counts (tests)."""
    _server.clear()
