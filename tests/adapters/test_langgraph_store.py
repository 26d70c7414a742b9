"""LangGraph's `BaseStore` over Memory Console (clients/langgraph): namespace is the scope, key
the fact's id, search with a query recall; what doesn't map is refused, saying what does."""

import json

from memstore.facts.history import history_read
from memstore.facts.paths import Scope
from tests.adapters.conftest import SCENARIOS


def test_the_store_puts_gets_searches_and_deletes_facts(agent, adapters_python):
    done = agent.run([str(adapters_python), str(SCENARIOS / "store_langgraph.py")])
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["get"] == "Prefers aisle seats"
    assert seen["search"] == ["Prefers window seats"]
    assert seen["listed"] == ["Prefers window seats"]
    assert seen["namespaces"] == [["bot"], ["user"], ["project", "apollo"]]
    assert seen["after_delete"] == []
    assert seen["refused"][0].startswith("namespace ('memories', 'alice') is not a memory scope")
    assert "is neither this text's key" in seen["refused"][1]
    assert seen["in_group_run"] == [["bot"]]  # the run's own room: a group, no person
    shard = Scope("user", "alice").shard("scout")
    assert [c.op for c in history_read(agent.memory_root, shard)] == ["add", "edit", "remove"]
