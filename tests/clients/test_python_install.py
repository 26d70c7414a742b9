"""The Python client as a user gets it: `pip install ./clients/python` into a fresh virtual
environment (nothing of the server's), type-checked there with mypy --strict, the package and
the guide's examples alike, then one call against a live server from that environment."""

import subprocess
import venv

import pytest

from tests.clients.test_guide import examples
from tests.helpers import REPO

pytestmark = pytest.mark.slow

MISUSE = """\
from memory_console_client import Client

memory = Client("http://x", "mct_x", "r", "channel")  # refused
memory.remember("x", scope="room")  # refused
memory.remember("x", tier="forever")  # refused
memory.report_exchange("hi", "hello")  # refused
memory.recall("x")["items"][0]["body"]  # refused
memory.list_facts(shard="a")  # refused
memory.list_facts(scope="room", limit=5)
"""


def test_the_client_installs_alone_and_type_checks(workspace, tmp_path):
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = str(env / "bin" / "python")

    def run(*args: str, cwd=tmp_path) -> str:
        done = subprocess.run(
            [python, *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    run("-m", "pip", "install", "--quiet", str(REPO / "clients" / "python"), "mypy")
    installed = run("-c", "import memory_console_client as m; print(m.__file__)")
    assert str(REPO) not in installed  # the installed copy, not the source folder
    for number, code in enumerate(examples("python")):
        (tmp_path / f"example_{number}.py").write_text(code)
    run("-m", "mypy", "--strict", "-p", "memory_console_client")
    # The oldest Python the distribution declares (requires-python >=3.11).
    run("-m", "mypy", "--strict", "--python-version", "3.11", "-p", "memory_console_client")
    run("-m", "mypy", "--strict", "example_0.py", "example_1.py")

    # What the types refuse: mypy must report each misuse, on its line.
    (tmp_path / "misuse.py").write_text(MISUSE)
    done = subprocess.run(
        [python, "-m", "mypy", "--strict", "misuse.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    flagged = {int(line.split(":")[1]) for line in done.stdout.splitlines() if ": error:" in line}
    expected = {n for n, line in enumerate(MISUSE.splitlines(), 1) if line.endswith("# refused")}
    assert flagged == expected, done.stdout

    call = (
        "from memory_console_client import Client\n"
        f"with Client({workspace.url!r}, {workspace.token!r}, 'dm-9', 'direct', 'alice') as m:\n"
        "    print(m.remember('Drinks green tea', scope='user')['file'])\n"
    )
    assert run("-c", call).strip().startswith("users/alice/memory/by-agent/scout/log/")
