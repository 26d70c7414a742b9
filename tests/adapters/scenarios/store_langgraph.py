"""The LangGraph store for the conformance suite: put, get, search, list and delete through
`MemoryStore`, outside a graph (its own room) and inside one (the run's room); prints JSON."""

import json
import os

from langgraph.graph import START, StateGraph
from langgraph.store.base import BaseStore
from memory_console_client.adapter import room_settings
from memory_console_langgraph import MemoryConsole, MemoryStore
from memory_console_langgraph.store import fact_key
from typing_extensions import TypedDict

memory = MemoryConsole(os.environ["MEMORY_CONSOLE_URL"], os.environ["MEMORY_CONSOLE_TOKEN"])
store = MemoryStore(memory, room=room_settings("dm-alice", person="alice", projects=["apollo"]))
seen: dict = {}

aisle = "Prefers aisle seats"
store.put(("user",), fact_key(aisle), {"text": aisle})
seen["get"] = store.get(("user",), fact_key(aisle)).value["text"]
store.put(("user",), fact_key(aisle), {"text": "Prefers window seats"})  # an edit
seen["search"] = [i.value["text"] for i in store.search(("user",), query="window seats")]
seen["listed"] = [i.value["text"] for i in store.search(("user",))]
seen["namespaces"] = [list(n) for n in store.list_namespaces()]
store.delete(("user",), fact_key("Prefers window seats"))
seen["after_delete"] = [i.value["text"] for i in store.search(("user",))]
for bad in [lambda: store.put(("memories", "alice"), "k", {"text": "x"}),
            lambda: store.put(("bot",), "0123456789abcdef", {"text": "Likes tea"})]:  # fmt: skip
    try:
        bad()
    except ValueError as error:
        seen.setdefault("refused", []).append(str(error))


class State(TypedDict):
    found: list[str]


def lookup(state: State, *, store: BaseStore) -> State:
    return {"found": [list(n) for n in store.list_namespaces()]}


graph = StateGraph(State).add_node(lookup).add_edge(START, "lookup").compile(store=memory.store)
seen["in_group_run"] = graph.invoke(
    {"found": []}, {"configurable": {"thread_id": "team", "room_kind": "group"}}
)["found"]
print(json.dumps(seen))
