"""Link rows: the index of `rel=<kind>:<id>` entries, written beside the fact rows they come from.

Sync replaces the links of exactly the facts whose rows it replaced; rebuild streams them with
`COPY` after the facts. A link row belongs to its file row, so a vanished file takes its links.
"""

from collections.abc import Iterable

from memstore.facts import markdown
from memstore.facts.paths import FileLocation
from memstore.models import Link, MemoryFile

_COPY_COLUMNS = "file_id, source, kind, target, scope_key, shard_bot"


def links_replace(
    file_row: MemoryFile,
    location: FileLocation,
    removed: Iterable[str],
    added: Iterable[markdown.FactLine],
) -> None:
    """Drop the links of facts `removed` (identities) from this file, then add those of `added`."""
    removed = list(removed)
    if removed:
        Link.objects.filter(file=file_row, source__in=removed).delete()
    rows = [
        Link(
            file=file_row,
            source=fact.identity,
            kind=kind,
            target=target,
            scope_key=str(location.shard.scope),
            shard_bot=location.shard.bot,
        )
        for fact in added
        for kind, target in markdown.links_of(fact)
    ]
    if rows:
        Link.objects.bulk_create(rows)


def links_copy(
    cursor, chunk: Iterable[tuple[int, FileLocation, Iterable[markdown.FactLine]]]
) -> int:
    """Stream the links of rebuilt files (file row id, location, facts) into the bare table."""
    count = 0
    with cursor.cursor.copy(f"COPY memstore_link ({_COPY_COLUMNS}) FROM STDIN") as copy:
        for file_id, location, facts in chunk:
            scope_key, bot = str(location.shard.scope), location.shard.bot
            for fact in facts:
                if not fact.meta or markdown.LINK_KEY not in fact.meta:
                    continue
                for kind, target in markdown.links_of(fact):
                    copy.write_row((file_id, fact.identity, kind, target, scope_key, bot))
                    count += 1
    return count
