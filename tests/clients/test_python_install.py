"""The Python client as a user gets it: `pip install ./clients/python` into a fresh virtual
environment (nothing of the server's), type-checked there with mypy --strict, the package and
the guide's examples alike, then one call against a live server from that environment."""

import subprocess
import venv

import pytest

from tests.clients.test_guide import examples
from tests.helpers import REPO

pytestmark = pytest.mark.slow


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

    call = (
        "from memory_console_client import Client\n"
        f"with Client({workspace.url!r}, {workspace.token!r}, 'dm-9', 'direct', 'alice') as m:\n"
        "    print(m.remember('Drinks green tea', scope='user')['file'])\n"
    )
    assert run("-c", call).strip().startswith("users/alice/memory/by-agent/scout/log/")
