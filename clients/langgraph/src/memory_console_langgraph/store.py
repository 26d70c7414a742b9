"""`MemoryStore`: the subset of LangGraph's `BaseStore` that maps honestly onto Memory Console.

    namespace ("bot",)                 the bot's own memory
              ("user",)                the person's memory (direct rooms only)
              ("project", "apollo")    a joined project's memory
    key       a fact's id (16 hex digits of its normalised text: `fact_key(text)`)
    value     {"text": "..."} (an item also carries `date`, `tier` and `scope`)

`put` with the key of its text saves the fact (a duplicate collapses); with another fact's key
it edits that fact (whose key then changes with its text); a value of None forgets it.
`search` with a query is recall, without one the scope's facts newest first; `get` finds one
fact by key. Filters, TTLs and other namespaces are refused with a ValueError saying so.
The room is the running graph's (`langgraph.config.get_config()`), else the store's `room`.
Reads fail open (None or nothing when Memory Console is unreachable); writes raise.
"""

import asyncio
import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from langgraph.config import get_config
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from memory_console_client import Client, ConnectionFailedError, NotFoundError, ServerError
from memory_console_client.adapter import RoomSettings

if TYPE_CHECKING:
    from memory_console_langgraph import MemoryConsole

_DOWN = (ConnectionFailedError, ServerError)


def fact_key(text: str) -> str:
    """A fact's id: SHA-1 of its text with whitespace collapsed and lower-cased, 16 hex digits."""
    return hashlib.sha1(" ".join(text.split()).lower().encode("utf-8")).hexdigest()[:16]


def scope_of(namespace: tuple[str, ...]) -> tuple[str, str | None]:
    """The scope (and project) a namespace names, or ValueError saying which ones exist."""
    if namespace in (("bot",), ("user",)):
        return namespace[0], None
    if len(namespace) == 2 and namespace[0] == "project" and namespace[1]:
        return "project", namespace[1]
    raise ValueError(
        f"namespace {namespace!r} is not a memory scope: use ('bot',), ('user',) or "
        "('project', <slug>)"
    )


class MemoryStore(BaseStore):
    """Memory Console as a LangGraph store (the subset in this module's doc)."""

    supports_ttl = False

    def __init__(self, console: "MemoryConsole", room: RoomSettings | None = None) -> None:
        self.console, self.room = console, room

    def _memory(self) -> Client:
        try:
            config = get_config()
        except RuntimeError:  # called outside a running graph
            if self.room is None:
                raise ValueError(
                    "outside a graph run the store needs its room: MemoryStore(console, room=…)"
                ) from None
            return self.room.client(self.console.client)
        return self.console.memory(config)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        memory = self._memory()
        return [_run(memory, op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        memory = self._memory()  # the run's config is read here, in the caller's context
        return await asyncio.to_thread(lambda: [_run(memory, op) for op in ops])


def _run(memory: Client, op: Op) -> Result:
    if isinstance(op, GetOp):
        return _get(memory, op)
    if isinstance(op, SearchOp):
        return _search(memory, op)
    if isinstance(op, PutOp):
        return _put(memory, op)
    if isinstance(op, ListNamespacesOp):
        return _namespaces(memory, op)
    raise ValueError(f"unknown store operation {op!r}")


def _item(fact: dict, namespace: tuple[str, ...], score: float | None = None) -> SearchItem:
    day = datetime.fromisoformat(fact["date"]).replace(tzinfo=UTC)
    value = {"text": fact["text"], "date": fact["date"], "tier": fact["tier"]}
    value["scope"] = fact["scope"]
    return SearchItem(namespace, fact["id"], value, day, day, score)


def _get(memory: Client, op: GetOp) -> Item | None:
    scope, project = scope_of(op.namespace)
    try:
        found = memory.fact_links(op.key)
    except NotFoundError:
        return None
    except _DOWN:
        return None
    for fact in found["facts"]:
        if fact["id"] == op.key and _in(fact, scope, project):
            item = _item(fact, op.namespace)
            return Item(value=item.value, key=item.key, namespace=item.namespace,
                        created_at=item.created_at, updated_at=item.updated_at)  # fmt: skip
    return None


def _in(fact: dict, scope: str, project: str | None) -> bool:
    return fact["scope"] == scope and (project is None or fact["scope_name"] == project)


def _search(memory: Client, op: SearchOp) -> list[SearchItem]:
    if op.filter:
        raise ValueError("filter is not supported: a fact has only its text, search with query")
    scope, project = scope_of(op.namespace_prefix)
    try:
        if op.query:
            found = memory.recall(op.query, limit=min(50, op.offset + op.limit))["items"]
            hits = [f for f in found if _in(f, scope, project)][op.offset :]
        else:
            page = memory.list_facts(scope=scope, project=project, offset=op.offset,  # type: ignore[arg-type]
                                     limit=op.limit)  # fmt: skip
            hits = page["items"]  # type: ignore[assignment]
    except _DOWN:
        return []
    count = len(hits)
    return [
        _item(f, op.namespace_prefix, (count - i) / count if op.query else None)
        for i, f in enumerate(hits[: op.limit])
    ]


def _put(memory: Client, op: PutOp) -> None:
    scope, project = scope_of(op.namespace)
    if not isinstance(op.ttl, NotProvided) and op.ttl is not None:
        raise ValueError("ttl is not supported: a fact stays until it is forgotten")
    if op.value is None:
        memory.forget(id=op.key, scope=scope, project=project)  # type: ignore[arg-type]
        return
    text = op.value.get("text") if isinstance(op.value, dict) else None
    if not isinstance(text, str) or not text.strip():
        raise ValueError('a memory item\'s value is {"text": "<the fact>"}')
    if op.key == fact_key(text):
        memory.remember(text, scope=scope, project=project)  # type: ignore[arg-type]
        return
    try:
        memory.edit(op.key, text, scope=scope, project=project)  # type: ignore[arg-type]
    except NotFoundError:
        raise ValueError(
            f"key {op.key!r} is neither this text's key (fact_key(text) = {fact_key(text)!r}) "
            "nor a fact stored in this scope"
        ) from None


def _namespaces(memory: Client, op: ListNamespacesOp) -> list[tuple[str, ...]]:
    room = memory.room
    spaces: list[tuple[str, ...]] = [("bot",)]
    if room.room_kind == "direct":
        spaces.append(("user",))
    spaces += [("project", p) for p in room.projects]
    for condition in op.match_conditions or ():
        path = tuple(condition.path)
        keep = _prefix if condition.match_type == "prefix" else _suffix
        spaces = [s for s in spaces if keep(s, path)]
    if op.max_depth is not None:
        spaces = list(dict.fromkeys(s[: op.max_depth] for s in spaces))
    return spaces[op.offset : op.offset + op.limit]


def _prefix(space: tuple[str, ...], path: tuple[Any, ...]) -> bool:
    return len(path) <= len(space) and all(p in ("*", s) for p, s in zip(path, space, strict=False))


def _suffix(space: tuple[str, ...], path: tuple[Any, ...]) -> bool:
    return _prefix(space[::-1], path[::-1])
