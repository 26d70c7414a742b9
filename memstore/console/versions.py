"""A fact's versions in the console: list the texts it had before each edit and
restore any of them, as the person, in scopes they may see. A restore is an edit back to the old
text (`console_fact_edit`): the text it replaces becomes a version in turn, and a fact changed
meanwhile is not overwritten (EditConflict). Also what a bot knew on a date, as its page shows it."""

from dataclasses import dataclass
from datetime import date, datetime

from memstore.console.facts import FactRow, bot_tabs, console_fact_get, shard_of_file
from memstore.console.viewer import Viewer
from memstore.console.writes import console_fact_edit
from memstore.errors import FactNotFound
from memstore.facts.history import history_read
from memstore.facts.paths import memory_root
from memstore.facts.records import StoredFact
from memstore.facts.versions import FactVersion, fact_versions
from memstore.prompt.asof import facts_as_of, history_start


@dataclass(frozen=True, slots=True)
class FactVersions:
    """A fact as it is now and its earlier texts, newest first."""

    current: FactRow
    versions: list[FactVersion]


def console_fact_versions(*, viewer: Viewer, file: str, fact_id: str) -> FactVersions:
    """The fact in this file and its versions (FactNotFound if it is no longer there)."""
    shard = shard_of_file(viewer, file)
    current = console_fact_get(viewer=viewer, file=file, fact_id=fact_id)
    changes = history_read(memory_root(), shard)
    return FactVersions(
        current=current, versions=fact_versions(changes, file=file, fact_id=fact_id)
    )


def console_version_restore(*, viewer: Viewer, file: str, fact_id: str, at: str) -> FactRow:
    """Edit the fact back to the version replaced at `at`."""
    found = console_fact_versions(viewer=viewer, file=file, fact_id=fact_id)
    version = next((v for v in found.versions if v.at == at), None)
    if version is None:
        raise FactNotFound("That version of the fact is not in its history.")
    return console_fact_edit(
        viewer=viewer,
        file=file,
        fact_id=fact_id,
        text=version.text,
        expected_text=found.current.fact.text,
    )


def console_bot_as_of(*, viewer: Viewer, bot: str, day: date) -> list[StoredFact]:
    """What this bot knew at the end of `day`, in the scopes its page shows this viewer (its own
    memory, what it wrote about people the viewer may see, its projects, legacy rooms), newest
    first; replayed from history."""
    facts: list[StoredFact] = []
    for tab in bot_tabs(bot=bot, viewer=viewer, counts=False):
        found = facts_as_of(scopes=tab.scopes, day=day)
        facts += [f for f in found if tab.shard_bot is None or f.shard_bot == tab.shard_bot]
    facts.sort(key=lambda f: (-f.day.toordinal(), -f.rank, f.scope, f.fact_id))
    return facts


def console_history_start(*, viewer: Viewer, bot: str) -> datetime | None:
    """When the history of the memory this bot's page shows this viewer starts (None: none)."""
    scopes = [
        scope for tab in bot_tabs(bot=bot, viewer=viewer, counts=False) for scope in tab.scopes
    ]
    return history_start(scopes=list(dict.fromkeys(scopes)))
