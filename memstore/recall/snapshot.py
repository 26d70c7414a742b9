"""Scope snapshots: the searchable facts of one scope, held in this process between searches.

Owns: `snapshots_current`, which returns, for each searched scope, its fact rows as arrays (row
id, identity, date, hidden flag, text length, tie key) and a word index over them: posting lists
of the English lexemes Postgres derived for each fact, and, asked of Postgres when a query first
needs one, of the short acronyms and names that `lexical` matches exactly. Recall ranks words
(`word_rank`) and meaning (the vector matrices of `matrices`) over these arrays instead of asking
Postgres for every search.

A snapshot is kept per (database, scope) and reused while the scope's version (see `versions`)
is unchanged. When it changes, only the facts of the scope's files whose row changed are read
again (a file's row records a new stat and sync time whenever the sync touched its facts); the
arrays and posting lists are then re-laid from the files' parts. Snapshots are dropped least
recently used first past `CACHE_MAX_FACTS` rows in this process; one scope is read by one thread
at a time while other scopes are served (`lru`). A search within a time budget asks with
`snapshots_ready`, which builds a snapshot needing more than `INLINE_BUILD_FACTS` rows read on a
background thread and lets the search go on without snapshots meanwhile.

Does not: decide which scopes may be read, rank anything, or write index rows.
"""

import logging
import threading
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from django.db import connection

from memstore.recall.lexical import Term
from memstore.recall.lru import BuiltCache

logger = logging.getLogger(__name__)

# Rows held per process before the least recently used scope goes: about 46 MB per 100,000
# (measured with `bench recall`'s facts: row ids, identities, tie keys and posting lists).
CACHE_MAX_FACTS = 200_000
EXACT = "\x1e"  # prefix of an exact word in a snapshot's vocabulary (never in a lexeme)
_SEP = "\x1f"  # joins a fact's lexemes in the statement that reads them

_FILES_SQL = (
    "SELECT id, mtime_ns, size, synced_at, fact_count FROM memstore_memoryfile WHERE scope_key = %s"
)
_FACTS_SQL = (
    "SELECT f.file_id, f.id, f.fact_id, f.day, f.visibility = 'hidden', f.scope_key,"
    " f.shard_bot, m.path, length(f.text),"
    f" array_to_string(tsvector_to_array(f.search), E'\\x{ord(_SEP):02x}')"
    " FROM memstore_fact f JOIN memstore_memoryfile m ON m.id = f.file_id"
    " WHERE f.file_id = ANY(%s)"
)


@dataclass(slots=True)
class _Part:
    """One memory file's facts, as read at one version of its file row."""

    version: tuple
    pks: np.ndarray  # int64
    fact_ids: np.ndarray  # object
    codes: np.ndarray  # uint64: the identities' 16 hex digits as a number
    days: np.ndarray  # int32 proleptic ordinals
    hidden: np.ndarray  # bool
    lens: np.ndarray  # float64: characters of the stored text
    keys: list[tuple[str, str, str, str]]  # (identity, scope, shard, file)
    term_ids: np.ndarray  # int32: vocabulary ids of each fact's lexemes, in row order
    term_counts: np.ndarray  # int64: how many of them each fact has


@dataclass(slots=True)
class Snapshot:
    """One scope's fact rows in this process; row i of every array is the same fact."""

    key: str  # the scope, "kind:name"
    version: tuple
    pks: np.ndarray  # int64 Fact row ids
    fact_ids: np.ndarray  # object: identities
    codes: np.ndarray  # uint64: the identities as numbers (counting distinct facts fast)
    days: np.ndarray  # int32 proleptic ordinals
    hidden: np.ndarray  # bool
    lens: np.ndarray  # float64 text lengths
    keys: list[tuple[str, str, str, str]]  # tie order: (identity, scope, shard, file)
    vocabulary: dict[str, int]
    parts: dict[int, _Part] = field(repr=False)
    _terms: np.ndarray = field(repr=False)  # posting lists: term ids, sorted
    _rows: np.ndarray = field(repr=False)  # and the row holding each
    _exact: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _by_pk: np.ndarray | None = field(default=None, repr=False)  # row order sorted by row id

    @property
    def rows(self) -> int:
        return len(self.pks)

    def postings(self, term: str) -> np.ndarray:
        """The rows holding a term: an English lexeme, or EXACT + a word (found as a whole
        word, case kept, the first time a query asks for it)."""
        if term.startswith(EXACT):
            found = self._exact.get(term)
            if found is None:
                found = self._exact[term] = self._whole_word(term[len(EXACT) :])
            return found
        tid = self.vocabulary.get(term)
        if tid is None:
            return _NONE
        # Same dtype as the haystack, or numpy would convert all of it on every call.
        lo, hi = np.searchsorted(self._terms, np.array([tid, tid + 1], dtype=self._terms.dtype))
        return self._rows[lo:hi]

    def _whole_word(self, word: str) -> np.ndarray:
        # Exact words are rare in queries (acronyms and names English drops as stopwords), so
        # they are not indexed: Postgres finds them with `lexical`'s own test, once per word
        # and snapshot; rows the snapshot does not hold (written since) are left out.
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id FROM memstore_fact WHERE scope_key = %s AND text ~ %s",
                [self.key, Term("exact", word).param],
            )
            found = np.fromiter((row[0] for row in cursor.fetchall()), dtype=np.int64)
        if self._by_pk is None:
            self._by_pk = np.argsort(self.pks)
        ordered = self.pks[self._by_pk]
        at = np.searchsorted(ordered, found)
        at, found = at[at < len(ordered)], found[at < len(ordered)]
        rows = self._by_pk[at[ordered[at] == found]]
        return np.sort(rows).astype(np.int32)


_NONE = np.empty(0, dtype=np.int32)
_cache: BuiltCache[Snapshot] = BuiltCache(CACHE_MAX_FACTS, size=lambda snapshot: snapshot.rows)


def snapshots_current(versions: dict[str, tuple], keys: list[str]) -> list[Snapshot]:
    """Snapshots of these scopes at the versions given (scopes without files are left out)."""
    db = connection.settings_dict["NAME"]
    result = []
    for key in keys:
        version = versions.get(key)
        if version is None:
            continue
        result.append(
            _cache.get(
                (db, key),
                fresh=lambda held, version=version: held.version == version,
                build=lambda old, key=key, version=version: _refresh(key, version, old),
            )
        )
    return result


INLINE_BUILD_FACTS = 2_000  # rows a search reads into a snapshot itself (~20 ms idle); more: behind
_building: set[tuple[str, str]] = set()  # (database, scope) being built on a background thread
_building_lock = threading.Lock()


def snapshots_ready(versions: dict[str, tuple], keys: list[str]) -> list[Snapshot] | None:
    """`snapshots_current`, except for scopes whose refresh would read more than
    INLINE_BUILD_FACTS rows (a drop-in of thousands of lines, a large scope seen for the first
    time): those are built on a background thread and the snapshot held before is used
    meanwhile; None when a scope has none yet (search without snapshots this time)."""
    db = connection.settings_dict["NAME"]
    behind: dict[str, Snapshot | None] = {}
    for key in keys:
        version = versions.get(key)
        if version is None:
            continue
        held = _cache.peek((db, key))
        if held is not None and held.version == version:
            continue
        if version[-1] > INLINE_BUILD_FACTS and _to_read(key, held) > INLINE_BUILD_FACTS:
            _build_behind(db, key, version)
            behind[key] = held
    if not behind:
        return snapshots_current(versions, keys)
    if any(held is None for held in behind.values()):
        return None
    now = snapshots_current({k: v for k, v in versions.items() if k not in behind}, keys)
    return sorted([*now, *behind.values()], key=lambda snapshot: keys.index(snapshot.key))


def _to_read(key: str, held: Snapshot | None) -> int:
    """How many fact rows a refresh of this scope's snapshot would read (its changed files')."""
    with connection.cursor() as cursor:
        cursor.execute(_FILES_SQL, [key])
        files = {row[0]: tuple(row[1:]) for row in cursor.fetchall()}
    kept = held.parts if held is not None else {}
    return sum(v[-1] for fid, v in files.items() if fid not in kept or kept[fid].version != v)


def _build_behind(db: str, key: str, version: tuple) -> None:
    with _building_lock:
        if (db, key) in _building:
            return
        _building.add((db, key))

    def build() -> None:
        try:
            snapshots_current({key: version}, [key])
        except Exception:
            logger.exception("could not build the snapshot of %s", key)
        finally:
            connection.close()  # this thread's own connection
            with _building_lock:
                _building.discard((db, key))

    threading.Thread(target=build, name="memstore-snapshot", daemon=True).start()


def snapshots_building() -> bool:
    """Whether a snapshot is being built on a background thread (tests, benchmarks)."""
    with _building_lock:
        return bool(_building)


def snapshots_clear() -> None:
    """Forget every snapshot in this process (tests)."""
    _cache.clear()


def _refresh(key: str, version: tuple, old: Snapshot | None) -> Snapshot:
    vocabulary = old.vocabulary if old is not None else {}
    kept = old.parts if old is not None else {}
    with connection.cursor() as cursor:
        cursor.execute(_FILES_SQL, [key])
        files = {row[0]: tuple(row[1:]) for row in cursor.fetchall()}
        parts = {
            fid: kept[fid] for fid, v in files.items() if fid in kept and kept[fid].version == v
        }
        stale = sorted(set(files) - parts.keys())
        if stale:
            cursor.execute(_FACTS_SQL, [stale])
            rows = cursor.fetchall()
            by_file: dict[int, list[tuple]] = {fid: [] for fid in stale}
            for row in rows:
                by_file[row[0]].append(row)
            for fid in stale:
                parts[fid] = _part(files[fid], by_file[fid], vocabulary)
    return _laid_out(key, version, parts, vocabulary)


def _part(version: tuple, rows: list[tuple], vocabulary: dict[str, int]) -> _Part:
    intern = vocabulary.setdefault
    # One file: one scope, shard and path, held once rather than once per fact.
    place = (rows[0][5], rows[0][6], rows[0][7]) if rows else ()
    term_ids: list[int] = []
    counts: list[int] = []
    for row in rows:
        words = row[9].split(_SEP) if row[9] else []
        term_ids += [intern(word, len(vocabulary)) for word in words]
        counts.append(len(words))
    return _Part(
        version=version,
        pks=np.array([row[1] for row in rows], dtype=np.int64),
        fact_ids=np.array([row[2] for row in rows] or [], dtype=object),
        codes=np.array([int(row[2], 16) for row in rows], dtype=np.uint64),
        days=np.array([row[3].toordinal() for row in rows], dtype=np.int32),
        hidden=np.array([row[4] for row in rows], dtype=bool),
        lens=np.array([row[8] for row in rows], dtype=np.float64),
        keys=[(row[2], *place) for row in rows],
        term_ids=np.array(term_ids, dtype=np.int32),
        term_counts=np.array(counts, dtype=np.int64),
    )


def _laid_out(
    key: str, version: tuple, parts: dict[int, _Part], vocabulary: dict[str, int]
) -> Snapshot:
    ordered = [parts[fid] for fid in sorted(parts)]

    def joined(column: str, dtype) -> np.ndarray:
        arrays = [getattr(part, column) for part in ordered]
        return np.concatenate(arrays) if arrays else np.empty(0, dtype=dtype)

    counts = joined("term_counts", np.int64)
    term_ids = joined("term_ids", np.int32)
    rows = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
    order = np.argsort(term_ids, kind="stable")
    return Snapshot(
        key=key,
        version=version,
        pks=joined("pks", np.int64),
        fact_ids=joined("fact_ids", object),
        codes=joined("codes", np.uint64),
        days=joined("days", np.int32),
        hidden=joined("hidden", bool),
        lens=joined("lens", np.float64),
        keys=list(chain.from_iterable(part.keys for part in ordered)),
        vocabulary=vocabulary,
        parts=parts,
        _terms=term_ids[order],
        _rows=rows[order],
    )
