"""The `memory-console` command from this checkout (tests/test_package.py runs the installed
one): bad flags and a taken port are said plainly before anything touches the database, and
`./dev serve` and `./dev manage` are this same command."""

import re
import socket
import subprocess
import sys

from tests.helpers import REPO


def command(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memoryconsole", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", **env},
    )


def test_version_is_the_package_version():
    done = command("--version")
    version = re.search(r'^version = "(.+)"$', (REPO / "pyproject.toml").read_text(), re.M)[1]
    assert done.returncode == 0 and done.stdout.strip() == f"memory-console {version}"


def test_a_bad_port_or_host_is_named(tmp_path):
    for args, said in (
        (("--port", "80a"), "the port must be a number from 1 to 65535, not '80a'"),
        (("--port", "70000"), "not '70000'"),
        (("--host", " "), "the host must not be empty"),
    ):
        done = command("serve", *args, MEMORY_CONSOLE_HOME=str(tmp_path / "home"))
        assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not (tmp_path / "home").exists()


def test_a_taken_port_is_said_before_anything_runs(tmp_path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = command("serve", "--port", str(port), MEMORY_CONSOLE_HOME=str(tmp_path / "home"))
    assert done.returncode == 1
    assert f"Port {port} on 127.0.0.1 is taken" in done.stderr
    assert f"memory-console serve --port {port + 1}" in done.stderr
    assert not (tmp_path / "home").exists()  # nothing migrated, no database started


def test_manage_passes_everything_through(tmp_path):
    done = command("manage", "help", "reindex", MEMORY_CONSOLE_HOME=str(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: memory-console manage reindex")


def test_manage_in_an_empty_folder_refuses_and_says_where_it_looked(tmp_path):
    home = tmp_path / "var"
    done = command("manage", "bots", "list", MEMORY_CONSOLE_HOME=str(home))
    assert done.returncode == 2
    assert f"No Memory Console data folder at {home} (looked there: MEMORY_CONSOLE_HOME)" in (
        done.stderr
    )
    assert "MEMORY_CONSOLE_HOME=/path/to/var ./dev manage" in done.stderr  # a checkout's spelling
    assert not home.exists()  # no second, empty database started here


def test_doctor_says_what_is_missing_before_touching_anything(tmp_path):
    done = command("doctor", MEMORY_CONSOLE_HOME=str(tmp_path / "var"))
    assert done.returncode == 1
    assert done.stdout.startswith("✗ data folder: No Memory Console data folder at")
    assert not (tmp_path / "var").exists()


def test_dev_serve_and_manage_are_the_same_command():
    dev = (REPO / "dev").read_text()
    assert 'exec python -m memoryconsole serve --demo "$@"' in dev
    assert 'exec python -m memoryconsole manage "$@"' in dev
    assert "gunicorn" not in dev.split("serve)", 1)[1].split(";;", 1)[0]


def test_serving_is_said_only_once_the_server_answers(tmp_path):
    from memoryconsole.launcher import _answers

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # A server that takes a while to listen, as gunicorn does while its workers load.
    late = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import time, http.server as h; time.sleep(1.5); "
            f"h.HTTPServer(('127.0.0.1', {port}), h.BaseHTTPRequestHandler).serve_forever()",
        ]
    )
    try:
        assert _answers(f"127.0.0.1:{port}", late) is True  # 501 to GET: still an answer
    finally:
        late.kill()
        late.wait()
    gone = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    assert _answers(f"127.0.0.1:{port}", gone) is False
