"""How far one erase may go (`Reach`): the shards whose files and history it rewrites, and whose
stored records, notes and other files it may redact, named by owner (a bot, a person).

Three reaches, one per kind of caller: a bot (the shards it may change where it is, its own
records and notes), a person (every bot's shard of their user memory, records of their
conversations, their notes) and staff (everything). Every store decides a row's or file's
owner (`owns`); this module only says whether an owner is within reach.
"""

from dataclasses import dataclass

from memstore.facts.activity import workspace_shards
from memstore.facts.paths import Scope, Shard, all_scopes, memory_root, scope_shards


@dataclass(frozen=True, slots=True)
class Reach:
    """What one erase may change: these shards (files and history), and what is owned by these
    bots (None: any bot) and, if `person` is set, only what is about that person."""

    shards: tuple[Shard, ...]
    bots: frozenset[str] | None = None
    person: str | None = None

    def owns(self, *, bot: str | None, person: str | None) -> bool:
        """Whether something written by `bot` (None: no bot) about `person` (None: nobody in
        particular) is within reach."""
        if self.bots is not None and bot not in self.bots:
            return False
        return self.person is None or person == self.person


def reach_of_bot(bot: str, shards: list[Shard] | None = None) -> Reach:
    """A bot: the given shards (those it may change where it is), or every shard it writes."""
    if shards is None:
        root = memory_root()
        shards = [Scope("bot", bot).shard(bot)] + [
            s.shard(bot) for s in all_scopes(root) if s.sharded and (root / s.rel / bot).is_dir()
        ]
    return Reach(shards=tuple(shards), bots=frozenset({bot}))


def reach_of_person(person: str) -> Reach:
    """A person: what every bot's shard of their user memory holds, and their conversations."""
    shards = scope_shards(memory_root(), Scope("user", person))
    return Reach(shards=tuple(shards), bots=None, person=person)


def reach_of_workspace() -> Reach:
    """Staff: every shard and every record."""
    return Reach(shards=tuple(workspace_shards(memory_root())), bots=None)


def owner_of_path(rel: str) -> tuple[str | None, str | None]:
    """(bot, person) a file under MEMORY_ROOT belongs to, by its folder: `agents/<bot>/…`,
    `users/<person>/…` (and `…/by-agent/<bot>/…` inside it); (None, None) for the rest."""
    parts = rel.split("/")
    bot = person = None
    if len(parts) > 2 and parts[0] == "agents":
        bot = parts[1]
    if len(parts) > 2 and parts[0] == "users":
        person = parts[1]
    if len(parts) > 5 and parts[2:4] == ["memory", "by-agent"]:
        bot = parts[4]
    return bot, person
