"""Link rows: the index of `rel=<kind>:<id>` entries, written beside the fact rows they come from.

Sync replaces the links of exactly the facts whose rows it replaced; rebuild streams them with
`COPY` after the facts (`rebuild_rows` makes those rows). A link row belongs to its file row,
so a vanished file takes its links.
"""

from collections.abc import Iterable

from memstore.facts import markdown
from memstore.facts.paths import FileLocation
from memstore.models import Link, MemoryFile


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
