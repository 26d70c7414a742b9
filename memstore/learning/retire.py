"""The learner's `remove:` as a write: only what the learner itself made may it retire.

`learned_forget` removes a fact from the bot's own shards in this room only if every copy there
is machine-made and not pinned (`memstore.rules.protected`), checked under the bot's lock against
the lines as they are in the files: a person who edited or pinned the line since the plan was made
wins. If any copy is protected, nothing is removed and `FactProtected` is raised, so the learner
records a proposal for the review inbox instead. Other bots' shards are never touched.
"""

from memstore.errors import FactNotFound, FactProtected
from memstore.facts import markdown
from memstore.facts.files import read_snapshot
from memstore.facts.history import Change
from memstore.facts.locks import bot_lock
from memstore.facts.markdown import Line
from memstore.facts.paths import Shard, memory_root
from memstore.rules.protected import fact_protected
from memstore.store.links import files_holding
from memstore.store.services import file_rewrite


def learned_forget(*, shards: list[Shard], fact_id: str, by: str, via: str) -> list[Change]:
    """Remove every copy of a machine-made fact from these shards (all of one bot); raises
    FactProtected (nothing removed) if a copy was saved on purpose, FactNotFound if none is left."""
    root = memory_root()
    removed: list[Change] = []
    for bot in dict.fromkeys(shard.bot for shard in shards):
        with bot_lock(bot):
            files = [rel for s in shards if s.bot == bot for rel in files_holding(s, fact_id)]
            for rel in files:  # all checked before any is changed: all or nothing
                text = read_snapshot(root / rel).text or ""
                for line in markdown.parse_text(text):
                    _refuse_protected(line, fact_id)
            for rel in files:

                def drop(lines: list[Line], rel: str = rel) -> tuple[list[Line], list[Change]]:
                    hits = set()
                    for i, line in enumerate(lines):
                        _refuse_protected(line, fact_id)  # edited by hand since the check
                        if line.fact and line.fact.identity == fact_id:
                            hits.add(i)
                    changes = [
                        Change(
                            op="remove",
                            file=rel,
                            fact_id=fact_id,
                            line=str(lines[i].fact),
                            position=str(i + 1),
                        )
                        for i in sorted(hits)
                    ]
                    return markdown.remove_lines(lines, hits), changes

                removed += file_rewrite(rel, drop, by=by, via=via)
    if not removed:
        raise FactNotFound(f"No fact {fact_id} in these shards any more.")
    return removed


def _refuse_protected(line: Line, fact_id: str) -> None:
    if line.fact and line.fact.identity == fact_id and fact_protected(line.fact.meta):
        raise FactProtected(f"Fact {fact_id} was saved on purpose; the learner leaves it alone.")
