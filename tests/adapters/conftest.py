"""The adapters' conformance suite: every framework adapter (clients/langgraph,
clients/openai-agents, clients/claude-agent, clients/vercel-ai) runs one agent turn against a live
server, its model calls going to the scripted OpenAI-compatible server (`FakeModel`).

The frameworks are real packages from the registries, installed beside the adapters in their own
environment (`.venv-adapters`, made by `./dev adapters`; MEMORY_CONSOLE_ADAPTERS_PYTHON names
another), never into the project's: a turn is a scenario script run there as a process
(`scenarios/`), as an agent's own program would run. Tests skip, saying how to install it, when
that environment is missing."""

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import REPO, FakeModel, learner_on, run_command

SCENARIOS = Path(__file__).with_name("scenarios")
ADAPTERS_PYTHON = Path(
    os.environ.get("MEMORY_CONSOLE_ADAPTERS_PYTHON", REPO / ".venv-adapters" / "bin" / "python")
)


@dataclass
class Agent:
    """A live server with bot scout (in project apollo, linked to alice), its token, and the
    scripted model the agent's framework calls."""

    url: str
    token: str
    memory_root: Path
    model: FakeModel

    def env(self, url: str | None = None) -> dict[str, str]:
        return os.environ | {
            "MEMORY_CONSOLE_URL": url or self.url,
            "MEMORY_CONSOLE_TOKEN": self.token,
            "OPENAI_BASE_URL": self.model.url,
            "OPENAI_API_KEY": "test-key",
            # Generous, as every budget in the suite that is not the thing tested.
            "MEMORY_CONSOLE_READ_BUDGET": "60",
        }

    def run(self, command: list[str], *, url: str | None = None) -> subprocess.CompletedProcess:
        """One scenario or example, as a process; its output kept for the assert messages."""
        return subprocess.run(
            command, env=self.env(url), capture_output=True, text=True, timeout=180, check=False
        )

    def turn(self, adapter: str, room: dict, message: str, *, url: str | None = None) -> dict:
        """One turn of `adapter`'s agent in `room` (room_id, room_kind, person, projects): the
        scenario prints {"reply": ...} or fails."""
        done = self.run(turn_command(adapter) + [json.dumps(room), message], url=url)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])


VERCEL_AI = REPO / "clients" / "vercel-ai"


def turn_command(adapter: str) -> list[str]:
    """The command that runs one turn of `adapter`'s agent (skips when its packages are missing)."""
    if adapter == "vercel_ai":
        if not (VERCEL_AI / "node_modules" / "ai").exists() or not shutil.which("node"):
            pytest.skip("the Vercel AI SDK adapter's packages are missing: `./dev adapters`")
        return ["node", str(VERCEL_AI / "test" / "turn.mjs")]
    return [str(ADAPTERS_PYTHON), str(SCENARIOS / f"turn_{adapter}.py")]


@pytest.fixture(scope="session")
def adapters_python() -> Path:
    if not ADAPTERS_PYTHON.exists():
        pytest.skip(
            "the adapters' environment is missing: `./dev adapters` makes .venv-adapters with "
            "the frameworks (LangGraph, OpenAI Agents SDK, Claude Agent SDK) and the adapters"
        )
    return ADAPTERS_PYTHON


@pytest.fixture
def agent(adapters_python, transactional_db, live_server, memory_root, settings) -> Agent:
    model, learner = FakeModel(), FakeModel()
    learner_on(settings, learner)
    run_command("bots", "create", "scout", "--name", "Scout")
    run_command("bots", "join", "scout", "apollo")
    run_command("people", "add", "alice")
    run_command("people", "link", "alice", "scout")
    token = run_command("bots", "token", "scout", "--name", "adapters").strip().splitlines()[-1]
    yield Agent(url=live_server.url, token=token, memory_root=memory_root, model=model)
    model.close()
    learner.close()
