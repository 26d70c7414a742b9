"""Storing many vectors at once: one binary COPY instead of a statement per row.

Owns: `vectors_copy`, which sends a batch of (identity, vector) rows to Postgres in COPY's binary
format (pgvector's own wire format for the vector: no float is printed or parsed as text) into a
temporary table, then inserts them in one statement that keeps a vector stored meanwhile. On
this 2-core box at load 12 the statement-per-row insert stored about 700 of the static tier's
vectors a second, most of a drop-in's wait (docs/benchmarks.md).

Does not: compute vectors, decide which facts need one, or serve the `bytea` fallback column
(see `vectors`).
"""

import struct

import numpy as np
from django.db import connection, transaction

_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_TRAILER = struct.pack(">h", -1)


def vectors_copy(model: str, fact_ids: list[str], vectors: np.ndarray) -> None:
    """Store these rows under `model` (a vector already stored for an identity is kept)."""
    dim = int(vectors.shape[1])
    body = np.ascontiguousarray(vectors, dtype=">f4")
    vector_head = struct.pack(">ihh", 4 + 4 * dim, dim, 0)
    parts = [_HEADER]
    for fact_id, row in zip(fact_ids, body, strict=True):
        name = fact_id.encode()
        parts += [struct.pack(">hi", 2, len(name)), name, vector_head, row.tobytes()]
    parts.append(_TRAILER)
    with transaction.atomic(), connection.cursor() as cursor:
        # One per connection, emptied after use: a caller's own transaction (a test's, a
        # command's) may store several batches before it commits.
        cursor.execute(
            "CREATE TEMP TABLE IF NOT EXISTS memstore_vectors_in (fact_id text, vector vector)"
            " ON COMMIT DELETE ROWS"
        )
        with cursor.copy(
            "COPY memstore_vectors_in (fact_id, vector) FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.write(b"".join(parts))
        cursor.execute(
            "INSERT INTO memstore_embedding (model, fact_id, dim, vector)"
            " SELECT %s, fact_id, %s, vector FROM memstore_vectors_in"
            " ON CONFLICT (model, fact_id) DO NOTHING",
            [model, dim],
        )
        cursor.execute("TRUNCATE memstore_vectors_in")
