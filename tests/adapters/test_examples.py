"""docs/adapters.md: each adapter's example runs as printed (the code block under its
`<!-- example: NAME -->` marker), with its framework's real package, against a live server and a
scripted model; the reply it prints is the model's, the section reached the model, and the turn
was reported (or, for Claude's memory tool, the fact saved)."""

import json
import re
import shutil

import pytest

from memstore.models import Exchange
from tests.adapters.conftest import VERCEL_AI
from tests.adapters.fake_claude import FakeClaude
from tests.helpers import REPO, ok, profile

DOC = REPO / "docs" / "adapters.md"


def example(name: str) -> str:
    found = re.search(rf"<!-- example: {name} -->\n```\w+\n(.*?)```", DOC.read_text(), re.S)
    assert found, f"docs/adapters.md has no example {name!r}"
    return found.group(1)


@pytest.fixture
def remembered(agent):
    profile(agent.memory_root, "user", "alice", "- (2026-11-01) Likes rooftop venues", bot="scout")
    return agent


@pytest.mark.parametrize("name", ["langgraph", "openai-agents"])
def test_the_python_examples_run_as_printed(remembered, adapters_python, name, tmp_path):
    agent = remembered
    script = tmp_path / "example.py"
    script.write_text(example(name))
    agent.model.push(ok("The rooftop bar, at 7?"))
    done = agent.run([str(adapters_python), str(script)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "The rooftop bar, at 7?"
    assert "Likes rooftop venues" in json.dumps(agent.model.requests[0])
    assert list(Exchange.objects.values_list("room_id", "reply")) == [
        ("dm-alice", "The rooftop bar, at 7?")
    ]


def test_the_memory_tool_example_runs_as_printed(agent, adapters_python, tmp_path, monkeypatch):
    create = {"command": "create", "path": "/memories/user.md", "file_text": "- Is vegetarian\n"}
    claude = FakeClaude(
        [{"type": "tool_use", "id": "toolu_1", "name": "memory", "input": create}],
        [{"type": "text", "text": "Noted: vegetarian."}],
    )
    monkeypatch.setenv("ANTHROPIC_BASE_URL", claude.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    script = tmp_path / "example.py"
    script.write_text(example("memory-tool"))
    try:
        done = agent.run([str(adapters_python), str(script)])
    finally:
        claude.close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "Noted: vegetarian."
    [result] = claude.requests[1]["messages"][-1]["content"]
    assert "Saved 1 new fact(s) in /memories/user.md (about alice)." in json.dumps(result)
    saved = agent.memory_root / "users/alice/memory/by-agent/scout/profile.md"
    assert "Is vegetarian" in saved.read_text()


def test_the_vercel_ai_example_runs_as_printed(remembered, tmp_path):
    if not (VERCEL_AI / "node_modules" / "ai").exists() or not shutil.which("node"):
        pytest.skip("the Vercel AI SDK adapter's packages are missing: `./dev adapters`")
    agent = remembered
    # The example's imports resolve as in an app that installed the adapter and the SDK.
    modules = tmp_path / "node_modules"
    modules.mkdir()
    for entry in (VERCEL_AI / "node_modules").iterdir():
        (modules / entry.name).symlink_to(entry)
    (modules / "memory-console-vercel-ai").symlink_to(VERCEL_AI)
    script = tmp_path / "example.mjs"
    script.write_text(example("vercel-ai"))
    agent.model.push(ok("The rooftop bar, at 7?"))
    done = agent.run(["node", str(script)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "The rooftop bar, at 7?"
    assert "Likes rooftop venues" in json.dumps(agent.model.requests[0])
    assert Exchange.objects.count() == 1
