"""The wheel, as someone who installs it gets it: built from this checkout, installed with pip
into a new virtual environment on Python 3.13 (the wheel plus its dependencies from the
registry, nothing from this checkout), then `memory-console --version`, `manage` and `serve`
run from a folder with no checkout in it, the data in MEMORY_CONSOLE_HOME.

Slow (a build and an install: minutes the first time, pip's cache helps after), so it is one
build per session and marked `package`: CI runs it, `-m "not package"` leaves it out locally.
The interpreter is python3.13 from PATH or pyenv, or MEMORY_CONSOLE_TEST_PYTHON.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.deploy.processes import free_port
from tests.helpers import REPO

pytestmark = [pytest.mark.package, pytest.mark.slow]

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def python_313() -> str:
    if wanted := os.environ.get("MEMORY_CONSOLE_TEST_PYTHON"):
        return wanted
    found = shutil.which("python3.13")
    if found and subprocess.run([found, "-V"], capture_output=True).returncode == 0:
        return found
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
        for candidate in sorted(Path(root).glob("versions/3.13*/bin/python3.13")):
            return str(candidate)
    pytest.fail(
        "The package test installs the wheel on Python 3.13, and none was found: put "
        "python3.13 on PATH, install it with pyenv (pyenv install 3.13), or name one in "
        "MEMORY_CONSOLE_TEST_PYTHON."
    )


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", out, REPO],
        check=True,
    )
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="session")
def installed(wheel) -> Path:
    """A new virtual environment on Python 3.13 with the wheel installed: its bin folder."""
    # Not under pytest's temporary folders: as root the embedded Postgres runs as its own user
    # and opens the path up for it (tests/deploy/test_external_postgres.py).
    folder = Path(tempfile.mkdtemp(prefix="memoryconsole-package-"))
    subprocess.run([python_313(), "-m", "venv", folder / "env"], check=True)
    bin_dir = folder / "env" / "bin"
    subprocess.run(
        [
            bin_dir / "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            wheel,
        ],
        check=True,
    )
    yield bin_dir
    shutil.rmtree(folder, ignore_errors=True)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of someone who installed it: nothing of this checkout or its settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "VAR_DIR", "MEMORY_ROOT", "DJANGO_SETTINGS_MODULE"}
        and not key.startswith(("PYTHON", "VIRTUAL_ENV", "PYTEST"))
    }
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p
    )
    return env | extra


def test_the_wheel_carries_templates_static_files_and_the_server_settings(wheel):
    assert wheel.name == f"memory_console-{VERSION}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "memoryconsole/cli.py",
        "memoryconsole/templates/web/login.html",
        "memoryconsole/templates/500.html",
        "memoryconsole/static/web/console.css",
        "memoryconsole/static/web/console.js",
        "memoryconsole/gunicorn.conf.py",
        "memstore/migrations/0001_initial.py",
    ):
        assert needed in names, needed
    assert not [
        n for n in names if n.startswith(("var/", "tests/", "bench/")) or "__pycache__" in n
    ]
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "memory-console = memoryconsole.cli:main" in text


def test_version_and_manage_run_from_the_installed_command(installed, tmp_path):
    done = subprocess.run(
        [installed / "memory-console", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert done.returncode == 0 and done.stdout.strip() == f"memory-console {VERSION}"
    assert (
        subprocess.run(
            [installed / "python", "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        == "(3, 13)"
    )
    home = tmp_path / "home"
    listed = subprocess.run(
        [installed / "memory-console", "manage", "help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(MEMORY_CONSOLE_HOME=str(home)),
    )
    assert listed.returncode == 0, listed.stderr
    for command in ("reindex", "bots", "memory", "learning_worker", "migrate"):
        assert re.search(rf"^\s+{command}$", listed.stdout, re.M), command
    # No MEMORY_CONSOLE_HOME: the data folder is ./var where the command runs.
    checked = subprocess.run(
        [installed / "memory-console", "manage", "check"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert checked.returncode == 0, checked.stderr
    assert (tmp_path / "var" / "secret_key").is_file()
    # A command that needs the database, in a folder no server ever ran in: refused, saying
    # where it looked and how to point it at the served folder; no database made here.
    refused = subprocess.run(
        [installed / "memory-console", "manage", "bots", "list"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert refused.returncode == 2
    assert f"No Memory Console data folder at {tmp_path / 'var'}" in refused.stderr
    assert "MEMORY_CONSOLE_HOME=/path/to/var memory-console manage" in refused.stderr
    assert not (tmp_path / "var" / "pgdata").exists()


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_serve_answers_http_and_stops_cleanly(installed):
    home = Path(tempfile.mkdtemp(prefix="memoryconsole-package-home-"))
    elsewhere = Path(tempfile.mkdtemp(prefix="memoryconsole-package-cwd-"))
    port = free_port()
    log = elsewhere / "serve.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [installed / "memory-console", "serve", "--port", str(port)],
            cwd=elsewhere,
            env=clean_env(MEMORY_CONSOLE_HOME=str(home)),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        status = None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                status, body = fetch(f"{base}/api/v1/health")
                break
            except OSError:
                time.sleep(0.5)
        assert status == 200, log.read_text()[-4000:]
        assert '"database"' in body
        status, page = fetch(f"{base}/login/")
        assert status == 200 and "<form" in page and "password" in page  # the templates
        status, css = fetch(f"{base}/static/web/console.css")
        assert status == 200 and css == (REPO / "static/web/console.css").read_text()
        # The data went where it was told: the database, the secret key, the worker's log.
        assert (home / "pgdata" / "PG_VERSION").read_text().strip() == "18"
        assert (home / "secret_key").exists() and (home / "worker.log").exists()
        assert not (elsewhere / "var").exists()
        assert list((home / "metrics").glob("gunicorn-*"))  # /metrics' folder, not the package's
        assert not list(installed.parent.glob("lib/python*/site-packages/memoryconsole/var"))
        assert "createsuperuser" in log.read_text()  # a new folder: how to make a login
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            raise
    assert code == 0, log.read_text()[-4000:]
    # Everything it started has stopped: no worker left, the embedded server shut down.
    time.sleep(1)
    left = subprocess.run(["pgrep", "-s", str(server.pid)], capture_output=True, text=True)
    assert left.stdout.strip() == "", left.stdout
    assert not (home / "pgdata" / "postmaster.pid").exists()
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(elsewhere, ignore_errors=True)
