"""Over a real socket: the Python client from docs/api.md, pasted as is, against a live server."""

import re
from pathlib import Path

import pytest

from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def guide_client() -> dict:
    """Run the client code block of the integration guide and return its names."""
    section = GUIDE.read_text().split("## 9.", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    names: dict = {}
    exec(compile(code, str(GUIDE), "exec"), names)  # noqa: S102 - our own documentation
    return names


@pytest.fixture
def scout(transactional_db, live_server, memory_root):
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    person_add(name="alice")
    person_link(person="alice", bot="scout")
    token = token_create(bot="scout").token
    client = guide_client()
    memory = client["Memory"](
        live_server.url,
        token,
        room_id="dm-42",
        room_kind="direct",
        person="alice",
        projects=["apollo"],
    )
    return memory, client["MemoryAPIError"]


def test_guide_client_against_a_live_server(scout, memory_root):
    memory, MemoryAPIError = scout
    saved = memory.remember(
        "Prefers morning meetings", scope="user", type="preference", idempotency_key="dm-42/981/1"
    )
    again = memory.remember(
        "Prefers morning meetings", scope="user", type="preference", idempotency_key="dm-42/981/1"
    )
    assert again == saved
    assert saved["file"] == "users/alice/memory/by-agent/scout/log/" + saved["date"][:7] + ".md"
    memory.remember("Apollo launches on 3 March", scope="project", project="apollo", tier="profile")
    assert {f["text"] for f in memory.facts()["items"]} == {
        "Prefers morning meetings",
        "Apollo launches on 3 March",
    }

    group = memory.room(room_id="team", room_kind="group", person=None)
    with pytest.raises(MemoryAPIError) as refused:
        group.remember("Alice likes jazz", scope="user")
    assert (refused.value.status, refused.value.code) == (403, "forbidden")
    assert "direct rooms" in refused.value.message

    # A person edits the file by hand; the next call over the wire sees it.
    profile = memory_root / "projects/apollo/memory/by-agent/scout/profile.md"
    profile.write_text(profile.read_text().replace("3 March", "10 March"))
    texts = {f["text"] for f in group.facts(scope="project", project="apollo")["items"]}
    assert texts == {"Apollo launches on 10 March"}

    fact = memory.facts(q="10 March")["items"][0]
    with pytest.raises(MemoryAPIError) as conflict:
        memory.edit(
            fact["id"], "Apollo launches in April", expected_text="Apollo launches on 3 March"
        )
    assert conflict.value.detail["current"] == "Apollo launches on 10 March"
    assert memory.forget(text="prefers MORNING meetings")["forgotten"] == 1
