"""Erase: forget a fact so that no trace of its text is left where the caller may manage.

A plain forget (`services.fact_forget`) removes the fact's lines and keeps them in the shards'
history, so it can be restored. An erase also

- replaces every history line holding the fact with a tombstone (its id stays; the text becomes
  "[erased <date> by <who>]"), so it can no longer be listed or restored;
- deletes the fact's cached embeddings (`models.Embedding`, by identity);
- redacts its text from stored learner records (exchanges, their plans and recalled lists,
  learning events), upkeep proposals (their evidence, text and verdicts) and idempotent replies.

Who may erase what is a `Reach`: a bot (the shards it may change, its own records), a person
(their user memory in every bot's shard, records of their conversations) or staff (everything).
Files are rewritten by the ordinary forget (locked, atomic, re-synced); the history files are
rewritten with `files.write_atomic` under the same bot locks, which an erase takes for every
bot it touches in sorted order, so two erases never wait on each other in a cycle. What counts
as a copy is `memstore.privacy.forgotten`'s rule, which `verify-forgotten` uses to check the result.
"""

import json
from contextlib import ExitStack
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from memstore.errors import EditConflict, FactNotFound, UnreadableFile
from memstore.facts.activity import workspace_shards
from memstore.facts.files import ChangedOnDisk, read_snapshot, write_atomic
from memstore.facts.history import Change, change_parse, history_path
from memstore.facts.locks import bot_lock
from memstore.facts.paths import Scope, Shard, all_scopes, memory_root, scope_shards
from memstore.models import Embedding
from memstore.privacy.forgotten import (
    EXCHANGE_TEXT_FIELDS,
    PROPOSAL_TEXT_FIELDS,
    REDACTED,
    Target,
    record_rows,
    target_resolve,
    tombstone,
)
from memstore.rules.failures import refusals_recorded
from memstore.store.services import MAX_ATTEMPTS, fact_forget


@dataclass(frozen=True, slots=True)
class Reach:
    """What one erase may change: these shards (files and history) and the stored records of
    these bots (None: every bot's) or of conversations with this person."""

    shards: tuple[Shard, ...]
    bots: frozenset[str] | None = None
    person: str | None = None


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


@dataclass(frozen=True, slots=True)
class Erasure:
    """What an erase did: the lines it removed, and how many history lines, cached embeddings
    and stored records it cleaned."""

    removed: list[Change]
    history: int
    embeddings: int
    records: int


@refusals_recorded("erase")
def fact_erase(
    *, reach: Reach, fact_id: str | None = None, text: str | None = None, by: str, via: str
) -> Erasure:
    """Remove every copy of a fact within `reach`, tombstone its history lines, drop its
    cached embeddings and redact its text from stored records; FactNotFound if none held it."""
    target = target_resolve(fact_id=fact_id, text=text)
    day = timezone.localdate().isoformat()
    with ExitStack() as locks:
        # One fixed order (sorted slugs) for every erase: no two ever wait on each other.
        for bot in sorted({shard.bot for shard in reach.shards}):
            locks.enter_context(bot_lock(bot))
        stuck: UnreadableFile | None = None
        try:
            removed = fact_forget(
                shards=list(reach.shards), fact_id=fact_id, text=text, by=by, via=via
            )
        except FactNotFound:
            removed = []
        except UnreadableFile as error:  # the other copies are gone: clean up, then say so
            removed, stuck = [], error
        root = memory_root()
        history = sum(
            _history_erase(root, shard, target, mark=tombstone(day=day, by=by))
            for shard in reach.shards
        )
    embeddings, _ = Embedding.objects.filter(fact_id__in=target.ids).delete()
    records = _records_redact(target, reach)
    if stuck is not None:
        raise stuck
    if not (removed or history or embeddings or records):
        raise FactNotFound("Nothing to erase: no copy of that fact where you may erase it.")
    return Erasure(removed=removed, history=history, embeddings=embeddings, records=records)


def _history_erase(root: Path, shard: Shard, target: Target, *, mark: str) -> int:
    # Caller holds the shard bot's lock: every append to this history (services, index sync)
    # happens under it, so nothing is appended between our read and our atomic replace.
    path = history_path(root, shard)
    for _ in range(MAX_ATTEMPTS):
        snapshot = read_snapshot(path)
        if snapshot.text is None:
            return 0
        lines, count = [], 0
        for raw in snapshot.text.split("\n"):
            change = change_parse(raw) if raw.strip() else None
            if change is not None and target.change_holds(change):
                lines.append(_tombstoned(change, target, mark))
                count += 1
            else:
                lines.append(raw)
        if not count:
            return 0
        try:
            write_atomic(path, "\n".join(lines), expected=snapshot.signature)
        except ChangedOnDisk:
            continue
        return count
    raise EditConflict(f"{path.name} of {shard.rel} kept changing; try the erase again.")


def _tombstoned(change: Change, target: Target, mark: str) -> str:
    erased = replace(
        change,
        line=mark if change.fact_id in target.ids else change.line,
        old_line=mark if change.old_fact_id in target.ids else change.old_line,
    )
    return json.dumps(asdict(erased), ensure_ascii=False)


def _records_redact(target: Target, reach: Reach) -> int:
    rows = record_rows(target=target, bots=reach.bots, person=reach.person)
    with transaction.atomic():
        for exchange in rows["exchange"]:
            for name in EXCHANGE_TEXT_FIELDS:
                if value := getattr(exchange, name):
                    setattr(exchange, name, target.redact(value))
            exchange.recalled = _json_redact(exchange.recalled, target)
            exchange.plan = _json_redact(exchange.plan, target)
            exchange.save(update_fields=[*EXCHANGE_TEXT_FIELDS, "recalled", "plan"])
        for event in rows["learning"]:
            about = event.fact_id in target.ids
            event.text = REDACTED if about else target.redact(event.text)
            event.detail = target.redact(event.detail)
            event.save(update_fields=["text", "detail"])
        for proposal in rows["proposal"]:
            for name in PROPOSAL_TEXT_FIELDS:
                setattr(proposal, name, target.redact(getattr(proposal, name)))
            proposal.evidence = _json_redact(proposal.evidence, target)
            proposal.result = _json_redact(proposal.result, target)
            proposal.save(update_fields=[*PROPOSAL_TEXT_FIELDS, "evidence", "result"])
        for reply in rows["reply"]:
            reply.body = _json_redact(reply.body, target)
            reply.save(update_fields=["body"])
    return sum(len(found) for found in rows.values())


def _json_redact(value: object, target: Target) -> object:
    if isinstance(value, str):
        return target.redact(value)
    if isinstance(value, list):
        return [_json_redact(item, target) for item in value]
    if isinstance(value, dict):
        redacted = {key: _json_redact(item, target) for key, item in value.items()}
        about = value.get("fact_id") in target.ids or value.get("id") in target.ids
        if about and "text" in value:
            redacted["text"] = REDACTED
        return redacted
    return value
