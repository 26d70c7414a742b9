"""`manage.py import mem0`: the JSON Mem0 returns, in each shape it has had, mapped to scopes
without side effects.

Shapes reproduced from Mem0's API reference (docs.mem0.ai, "Get Memories", "v1 get memories")
and its SDKs: v1, a plain list of memories; v2, the platform's page
`{"count", "next", "previous", "results"}`; v3, the open-source `Memory.get_all` answer
`{"results": [...], "relations": [...]}` (relations when the graph store is on). A memory has
`id`, `memory`, `hash`, `metadata`, `categories`, `user_id`, `agent_id`, `run_id`,
`created_at`, `updated_at`, and on the platform `expiration_date` and `immutable`.
"""

import json

import pytest

from memstore.models import Person, PersonLink
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add
from tests.memstore.imports.common import all_facts, md_tree, run_import, write


def memory(mid: str, text: str, **fields) -> dict:
    return {
        "id": mid,
        "memory": text,
        "hash": f"h-{mid}",
        "metadata": None,
        "created_at": "2026-01-09T10:00:00.123456-08:00",
        "updated_at": None,
        **fields,
    }


V2 = {
    "count": 6,
    "next": None,
    "previous": None,
    "results": [
        memory("m-1", "Is vegetarian", user_id="u_17", categories=["food", "user_preferences"]),
        memory("m-2", "Team standup is at 9", agent_id="planner", categories=["work"]),
        memory("m-3", "Plays chess", user_id="zed", created_at="2026-02-02T08:00:00Z"),
        memory(
            "m-4", "Trial ends soon", user_id="u_17", expiration_date="2026-03-31", immutable=True
        ),
        memory("m-5", "Asked about flights to Lisbon", run_id="run-7f2"),
        memory("m-6", "Born on a bad day", user_id="u_17", created_at="2026-02-30T00:00:00Z"),
        memory(
            "m-7", "Tagged", user_id="u_17", categories=["sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a"]
        ),
    ],
}


@pytest.fixture
def scout(db):
    bot_create(slug="scout")
    person_add(name="alice")
    return "scout"


def test_v2_page_maps_users_agents_and_runs_to_scopes(scout, tmp_path, memory_root):
    text = json.dumps(V2, indent=2)
    path = write(tmp_path / "mem0.json", text)
    at = {
        mid: text[: text.index(f'"{mid}"')].count("\n") + 1 for mid in ("m-1", "m-2", "m-4", "m-5")
    }

    summary = run_import(
        "mem0",
        str(path),
        "--bot",
        "scout",
        "--map-user",
        "u_17=alice",
        "--map-agent",
        "planner=scout",
    )

    assert all_facts(memory_root) == {
        "users/alice/memory/by-agent/scout/log/2026-01.md": [
            f"- (2026-01-09) Is vegetarian <!-- type=preference category=food,user_preferences "
            f"src=mem0.json:{at['m-1']} by=scout via=import -->",
            "- (2026-01-09) Trial ends soon <!-- until=2026-03-31 pin=true src=mem0.json:"
            f"{at['m-4']} "
            "by=scout via=import -->",
        ],
        "agents/scout/memory/log/2026-01.md": [
            f"- (2026-01-09) Team standup is at 9 <!-- category=work src=mem0.json:{at['m-2']} "
            "by=scout via=import -->"
        ],
        "rooms/run-7f2/memory/by-agent/scout/log/2026-01.md": [
            f"- (2026-01-09) Asked about flights to Lisbon <!-- src=mem0.json:{at['m-5']} "
            "by=scout via=import -->"
        ],
    }
    lines = summary.splitlines()
    assert lines[0] == "Imported 4 facts; 0 already there; 2 refused; 1 lines skipped."
    assert "  linked person alice to bot scout" in lines
    assert "person 'zed' is not registered" in summary
    assert "secret_refused" in summary  # in the categories, not the text
    assert "skipped 1: an invalid date: day is out of range for month" in summary
    assert not Person.objects.filter(name="zed").exists()


def test_unknown_people_are_created_only_when_asked_and_never_in_a_dry_run(
    scout, tmp_path, memory_root
):
    path = write(tmp_path / "mem0.json", json.dumps([memory("m-3", "Plays chess", user_id="zed")]))

    dry = run_import("mem0", str(path), "--bot", "scout", "--create-people", "--dry-run")
    assert dry.splitlines()[:3] == [
        "Would import 1 facts; 0 already there; 0 refused; 0 lines skipped.",
        "  would create person zed",
        "  would link person zed to bot scout",
    ]
    assert not Person.objects.filter(name="zed").exists() and not PersonLink.objects.exists()
    assert md_tree(memory_root) == {}

    summary = run_import("mem0", str(path), "--bot", "scout", "--create-people")
    assert summary.splitlines()[1:3] == ["  created person zed", "  linked person zed to bot scout"]
    assert list(all_facts(memory_root)) == ["users/zed/memory/by-agent/scout/log/2026-01.md"]


def test_v1_list_and_v3_results_with_relations(scout, tmp_path, memory_root):
    v1 = write(tmp_path / "v1.json", json.dumps([memory("a", "Likes jazz", user_id="alice")]))
    v3 = write(
        tmp_path / "v3.json",
        json.dumps(
            {
                "results": [memory("b", "Works at Acme", user_id="alice")],
                "relations": [{"source": "alice", "relationship": "works_at", "target": "acme"}],
            }
        ),
    )

    run_import("mem0", str(v1), "--bot", "scout")
    summary = run_import("mem0", str(v3), "--bot", "scout")

    assert [
        f[15:25] for f in all_facts(memory_root)["users/alice/memory/by-agent/scout/log/2026-01.md"]
    ] == ["Likes jazz", "Works at A"]
    assert "1 graph relations: entity triples are not facts" in summary


def test_bad_files_say_why(scout, tmp_path):
    broken = write(tmp_path / "broken.json", "{not json")
    assert "not a Mem0 JSON export" in run_import("mem0", str(broken), "--bot", "scout")
    other = write(tmp_path / "other.json", json.dumps({"hello": 1}))
    assert "no list of memories" in run_import("mem0", str(other), "--bot", "scout")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00bad")
    assert "unreadable file: not UTF-8" in run_import("mem0", str(binary), "--bot", "scout")
