"""The one rule upkeep and synthesis never break: a fact saved on purpose is never changed or
archived by them. Enforced here, in the only functions they write through, under the bot's lock
against the line as it is in the file (not as an index row or a model remembered it).

A fact may be changed automatically only when its line says a machine made it (`via=` one of
`AUTOMATIC_VIAS`: the learner, synthesis) and it is not pinned. A line without `via` was saved by
a bot's explicit call, a tool, the console, an import or a person's editor: protected. The rule
is `memstore.rules.protected.fact_protected` (re-exported here), which the learner obeys too.

A merge (one of two alike facts archived, the kept one linked as superseding it) is refused
when the two differ in meaning (`merge_check`), whoever asks for it.

Archiving is forgetting with history (`via=upkeep` or `via=synthesis`): the line leaves the file,
its removal is in the shard's history, and the console's History page restores it in one click.
"""

from memstore.errors import FactNotFound, FactProtected, InvalidFact
from memstore.facts import markdown
from memstore.facts.history import Change
from memstore.facts.locks import bot_lock
from memstore.facts.markdown import Line
from memstore.facts.records import StoredFact
from memstore.rules.protected import fact_protected
from memstore.store.links import fact_links_change, files_holding
from memstore.store.services import file_rewrite
from memstore.upkeep.meaning import merge_refusal

__all__ = ["fact_archive", "fact_protected", "fact_supersede", "merge_check"]


def fact_archive(*, fact: StoredFact, by: str, via: str) -> list[Change]:
    """Archive (forget, with history) every copy of a machine-made fact in its shard. Raises
    FactProtected if any copy is protected (then nothing is removed), FactNotFound if gone."""
    shard = fact.shard
    removed: list[Change] = []
    with bot_lock(shard.bot):
        for rel in files_holding(shard, fact.fact_id):

            def drop(lines: list[Line], rel: str = rel) -> tuple[list[Line], list[Change]]:
                hits = set()
                for i, line in enumerate(lines):
                    if line.fact and line.fact.identity == fact.fact_id:
                        _refuse_protected(line.fact)
                        hits.add(i)
                changes = [_removed(rel, lines[i].fact) for i in sorted(hits)]
                return markdown.remove_lines(lines, hits), changes

            removed += file_rewrite(rel, drop, by=by, via=via)
    if not removed:
        raise FactNotFound(f"No fact {fact.fact_id} in {shard.rel} any more.")
    return removed


def fact_supersede(
    *, newer: StoredFact, older: StoredFact, by: str, via: str, protect: bool = True
) -> bool:
    """Link `newer` --supersedes--> `older` in the newer line. With `protect` (upkeep acting on
    its own) only if that line is machine-made: a protected line is not touched (returns
    False); a person approving the change links it whatever made it. Raises FactNotFound if
    the newer line is gone."""
    try:
        fact_links_change(
            shards=[newer.shard],
            fact_id=newer.fact_id,
            change=lambda links: [*links, ("supersedes", older.fact_id)],
            by=by,
            via=via,
            guard=_refuse_protected if protect else None,
        )
    except FactProtected:
        return False
    return True


def merge_check(*, kept: StoredFact, archived: StoredFact) -> None:
    """Raise InvalidFact if the two facts differ in meaning (`memstore.upkeep.meaning`): a
    merge archives one of them, and no merge, by upkeep or by a person's click, may lose what
    the other says (a "not", a number, a date, a name, "cancelled" for "postponed")."""
    if why := merge_refusal(kept.body, archived.body):
        raise InvalidFact(f"Not merged: {why[0].lower()}{why[1:]} Keep both, or archive one.")


def _refuse_protected(fact: markdown.FactLine) -> None:
    if fact_protected(fact.meta):
        raise FactProtected(f"Fact {fact.identity} was saved on purpose; it is left alone.")


def _removed(rel: str, fact: markdown.FactLine | None) -> Change:
    assert fact is not None
    return Change(op="remove", file=rel, fact_id=fact.identity, line=str(fact))
