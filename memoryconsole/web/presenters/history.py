"""How a shard's change history shows: one row per change, with who, how and when.

Pure: no queries, no file I/O (as every presenter)."""

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from memoryconsole.web.presenters.common import origin, scope_label
from memstore.facts.activity import ShardChange
from memstore.facts.markdown import parse_line
from memstore.facts.paths import Shard

_ACTIONS = {"add": "added", "remove": "removed", "edit": "edited", "restore": "restored"}


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """A recorded change as the console shows it."""

    item: ShardChange
    action: str  # added | removed | edited
    scope_label: str
    text: str  # the fact's text on the line (no date, no metadata)
    old_text: str  # for an edit: the text before
    origin: str
    restorable: bool
    when: datetime | None


def history_rows(items: list[ShardChange], private_rooms: Collection[str] = ()) -> list[HistoryRow]:
    """Display rows for recorded changes (`private_rooms`: rooms bound as private
    conversations, labelled so)."""
    rows = []
    for item in items:
        change = item.change
        new, old = parse_line(change.line), parse_line(change.old_line)
        rows.append(
            HistoryRow(
                item=item,
                action=_ACTIONS.get(change.op, change.op),
                scope_label=scope_label(
                    str(item.shard.scope), private=item.shard.scope.name in private_rooms
                ),
                text=new.text if new else change.line,
                old_text=old.text if old else "",
                origin=origin(change.by, change.via),
                restorable=change.op == "remove" and new is not None,
                when=stamp_time(change.at),
            )
        )
    return rows


def stamp_time(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:
        return None


def shard_choices(
    shards: list[Shard], private_rooms: Collection[str] = ()
) -> list[tuple[str, str]]:
    """(value, label) of each shard for the history page's picker."""
    return [
        (s.key, scope_label(str(s.scope), private=s.scope.name in private_rooms)) for s in shards
    ]
