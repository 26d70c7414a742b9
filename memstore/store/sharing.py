"""Sharing a private memory with the workspace: the one service staff use for it.

A memory is private when it is a person's (user scope), a fact a bot keeps for direct rooms
(`visibility=private`), or anything in the own memory of a bot that keeps a private memory.
`share_plan` says whether one may be shared and who will read it once it is (every bot in
every conversation: the workspace scope, `memstore.rooms.access.WORKSPACE`), or raises
NotShareable naming why not: shared already (and a shared memory can't be made private again),
replaced by a newer memory, past its `until` date, or forgotten. `fact_share` then writes the
shared copy, a new version in the writing bot's shard of the workspace scope (with
`shared=<scope>` saying where it came from), through the ordinary write path (so a secret or a
sensitive keyword is refused there, nothing written), closes the private line (its history
keeps it, restorable as any removal), and appends the share to the workspace's audit trail
(`memstore.store.audit`).

Does not: decide who may share (the console's staff check) or show anything.
"""

from dataclasses import dataclass

from django.utils import timezone

from memstore.errors import FactNotFound, NotShareable
from memstore.facts.history import history_read
from memstore.facts.markdown import FactLine
from memstore.facts.paths import Scope, Shard, locate, memory_root, person_of_scope
from memstore.facts.records import StoredFact
from memstore.facts.validity import is_expired, until_of
from memstore.index import index_sync
from memstore.models import Bot, Link
from memstore.rooms.access import WORKSPACE
from memstore.rules.content import content_check
from memstore.store.audit import AuditEntry, audit_append
from memstore.store.selectors import fact_find
from memstore.store.services import fact_forget, fact_remember

_SHARED_ALREADY = (
    "This memory is already shared with the workspace: a shared memory can't be made private "
    "again. To take it back, erase it."
)


@dataclass(frozen=True, slots=True)
class Sharing:
    """What sharing one private memory will do: the fact, whose it is now (`owner`, said for
    people: "about alice", "scout's private memory"), the shard it will go to, and the bots
    that will read it there (every registered bot)."""

    fact: StoredFact
    owner: str
    target: Shard
    readers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Shared:
    """A memory just shared: the new shared copy and the audit entry recording it."""

    fact: StoredFact
    source: str
    audit: AuditEntry


def share_plan(*, file: str, fact_id: str) -> Sharing:
    """Whether the fact at this file may be shared and what it would do; raises NotShareable
    (shared already, replaced, expired, forgotten), FactNotFound, or what the content check
    refuses in workspace memory (a secret, a sensitive keyword)."""
    location = locate(file or "")
    if location is None:
        raise FactNotFound("That is not a memory file.")
    shard = location.shard
    index_sync(scopes=[shard.scope])
    fact = _current(shard, file, fact_id)
    owner = _private_owner(shard, fact)
    if Link.objects.filter(kind="supersedes", target=fact.fact_id).exists():
        raise NotShareable(
            "This memory was replaced by a newer one: only the current version can be shared."
        )
    if is_expired(fact.meta, timezone.localdate()):
        raise NotShareable(
            f"This memory is no longer true (until {until_of(fact.meta)}): it can't be shared."
        )
    target = WORKSPACE.shard(shard.bot)
    # Refused now rather than at the write, so the confirmation already says why.
    meta = {k: v for k, v in fact.meta.items() if k != "visibility"}
    content_check(
        shard=target,
        fact=FactLine(day=fact.day, text=fact.text, meta=meta),
        person=None,
        via="console",
    )
    readers = tuple(Bot.objects.order_by("slug").values_list("slug", flat=True))
    return Sharing(fact=fact, owner=owner, target=target, readers=readers)


def fact_share(*, file: str, fact_id: str, by: str) -> Shared:
    """Share a private memory with the workspace (after `share_plan`'s checks): the shared
    copy is written first, then the private line is closed (kept in its shard's history), then
    the share goes on the audit trail. A secret or a sensitive keyword is refused by the write
    itself, and then nothing changed."""
    plan = share_plan(file=file, fact_id=fact_id)
    fact = plan.fact
    meta: dict[str, object] = {
        k: v for k, v in fact.meta.items() if k not in ("visibility", "shared", "by", "via")
    }
    if fact.visibility not in ("private", "context"):
        meta["visibility"] = fact.visibility  # searchable or hidden stays so
    meta["shared"] = fact.scope
    shared = fact_remember(
        shard=plan.target,
        text=fact.body,
        tier=fact.tier,  # type: ignore[arg-type]
        day=fact.day,
        meta=meta,
        person=person_of_scope(fact.scope),
        by=by,
        via="console",
    )
    source = locate(file)
    assert source is not None
    fact_forget(shards=[source.shard], fact_id=fact.fact_id, by=by, via="console")
    entry = audit_append(
        AuditEntry(action="share", fact_id=fact.fact_id, source=file, target=shared.file, by=by)
    )
    return Shared(fact=shared, source=file, audit=entry)


def _current(shard: Shard, file: str, fact_id: str) -> StoredFact:
    copies = [c for c in fact_find(scopes=[shard.scope], fact_id=fact_id) if c.file == file]
    if copies:
        return copies[0]
    for change in reversed(history_read(memory_root(), shard)):
        if change.file != file:
            continue
        if change.op == "edit" and change.old_fact_id == fact_id:
            raise NotShareable(
                "This memory was replaced by an edit: only the current version can be shared."
            )
        if change.op == "remove" and change.fact_id == fact_id:
            raise NotShareable("This memory was forgotten: only a current memory can be shared.")
    raise FactNotFound("That fact is no longer in this file; it may have been removed.")


def _private_owner(shard: Shard, fact: StoredFact) -> str:
    scope = shard.scope
    if scope.kind == "user":
        return f"about {scope.name}"
    if scope.kind == "bot":
        if Bot.objects.filter(slug=scope.name, private_memory=True).exists():
            return f"{scope.name}’s private memory"
        if fact.visibility == "private":
            return f"{scope.name}’s direct rooms only"
        raise NotShareable(
            f"{scope.name}’s own memory is already team-wide: it is not private, so there is "
            "nothing to share."
        )
    if scope.kind == "server":
        raise NotShareable(_SHARED_ALREADY)
    if scope.kind == "project":
        raise NotShareable("Project memory is shared already by the bots working on it.")
    raise NotShareable("Legacy room memory is read-only: it can't be shared.")


def is_private(scope: Scope, *, visibility: str, private_bot: bool) -> bool:
    """Whether a fact in this scope is private (what the console offers to share)."""
    if scope.kind == "user":
        return True
    return scope.kind == "bot" and (private_bot or visibility == "private")
