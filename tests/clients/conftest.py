"""The clients' tests: a live server (a real socket, the real database and files) with a bot,
its token, a project and a person linked to it, set up with the management commands a user
runs. The Python client is imported from its source folder, as `pip install clients/python`
would install it; the TypeScript client is built with its own dev dependencies (`built`)."""

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import REPO, FakeModel, learner_on, run_command

PACKAGE = REPO / "clients" / "typescript"
PYTHON_CLIENT = REPO / "clients" / "python" / "src"
if str(PYTHON_CLIENT) not in sys.path:
    sys.path.insert(0, str(PYTHON_CLIENT))


def guide_setup() -> list[list[str]]:
    """The management commands of docs/api.md section 6's setup block, as argument lists."""
    section = (REPO / "docs" / "api.md").read_text().split("## 6.", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    commands = [re.search(r"memory-console manage (.*?)\)?$", line) for line in block.splitlines()]
    return [shlex.split(found.group(1)) for found in commands if found]


@dataclass(frozen=True)
class Workspace:
    url: str
    token: str
    memory_root: Path


@pytest.fixture
def workspace(transactional_db, live_server, memory_root, settings) -> Workspace:
    """Bot scout in project apollo, acting for alice, with learning on (a local model server),
    behind a live server; its token as `manage.py bots token` prints it."""
    model = FakeModel()
    learner_on(settings, model)
    token = ""
    for args in guide_setup():  # docs/api.md section 6's setup, as printed
        printed = run_command(*args).strip()
        if args[:2] == ["bots", "token"]:
            token = printed.splitlines()[-1]
    assert token.startswith("mct_")
    yield Workspace(url=live_server.url, token=token, memory_root=memory_root)
    model.close()


def npm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["npm", *args], cwd=PACKAGE, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="session")
def built() -> None:
    """The package's dev dependencies installed (`npm ci`, if node_modules is missing) and the
    client compiled with tsc."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are needed for the TypeScript client's tests (Node 20+)")
    if not (PACKAGE / "node_modules" / ".bin" / "tsc").exists():
        done = npm("ci", "--no-audit", "--no-fund")
        assert done.returncode == 0, done.stdout + done.stderr
    done = npm("run", "build")
    assert done.returncode == 0, done.stdout + done.stderr
