"""The container image and compose file (deploy/): `./dev image` builds them, compose starts
PostgreSQL with pgvector, the app and a worker, and a bot's remember and recall go through the
published port, as the README's container section shows.

It needs podman (or docker) and podman-compose, which `.ci/run` installs; the first build takes a
few minutes (the image installs its packages from the registry), later ones reuse the layers.
Skipped, saying why, on a machine without an engine.
"""

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import date

import pytest

from tests.deploy.processes import REPO, free_port

ENGINE = shutil.which("podman") or shutil.which("docker")
# podman-compose is a dev dependency: in the venv's bin folder even when that is not on PATH.
_VENV_BIN = os.path.dirname(sys.executable)
COMPOSE = (
    shutil.which("podman-compose", path=f"{_VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if ENGINE and ENGINE.endswith("podman")
    else None
)

pytestmark = pytest.mark.skipif(
    ENGINE is None or (ENGINE.endswith("podman") and COMPOSE is None),
    reason="needs podman and podman-compose (or docker): .ci/run installs them",
)


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> str:
    done = subprocess.run(
        args, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def call(url: str, token: str, body: dict | None = None) -> dict:
    headers = {"Authorization": f"Bearer {token}", "X-Room-Id": "team", "X-Room-Kind": "group"}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def wait_healthy(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        assert time.monotonic() < deadline, f"{url} did not answer 200 within {seconds} s"
        time.sleep(1)


@pytest.fixture(scope="module")
def stack():
    """`./dev image`, then the compose project on a free port; torn down with its volumes."""
    env = dict(os.environ)
    built = run([str(REPO / "dev"), "image"], env, timeout=1500)
    postgres = [line for line in built.splitlines() if line.startswith("POSTGRES_IMAGE=")]
    assert postgres, f"./dev image did not say which PostgreSQL image it built:\n{built}"
    env["POSTGRES_IMAGE"] = postgres[-1].split("=", 1)[1]
    if ENGINE.endswith("podman") and "CONTAINERS_CONF" not in env and shutil.which("runc"):
        env["CONTAINERS_CONF"] = str(REPO / "deploy/container/containers.conf")
    port = free_port()
    env["PORT"] = str(port)
    env["POSTGRES_PASSWORD"] = "container-test-" + os.urandom(8).hex()
    env["DJANGO_SUPERUSER_USERNAME"] = "staff"
    env["DJANGO_SUPERUSER_PASSWORD"] = "a-long-test-password-" + os.urandom(4).hex()
    env["DJANGO_SUPERUSER_EMAIL"] = "staff@example.org"
    project = f"mc-test-{os.getpid()}"
    compose = [COMPOSE] if COMPOSE else [ENGINE, "compose"]
    compose += ["-p", project, "-f", str(REPO / "deploy/compose.yaml")]
    run([*compose, "up", "-d"], env, timeout=300)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/api/v1/health", 180)
        yield compose, env, f"http://127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*compose, "down", "-v"], cwd=REPO, env=env, capture_output=True, timeout=120
        )


def test_a_bot_remembers_and_recalls_through_the_containers(stack):
    compose, env, base = stack
    in_web = [*compose, "exec", "-T", "web", "memory-console", "manage"]
    run([*in_web, "bots", "create", "scout", "--name", "Scout"], env)
    token = run([*in_web, "bots", "token", "scout"], env).strip()
    assert token.startswith("mct_")

    saved = call(f"{base}/api/v1/facts", token, {"text": "Prefers window seats on long flights"})
    assert saved["text"] == "Prefers window seats on long flights"
    found = call(f"{base}/api/v1/recall?query=window+seats", token)
    assert [item["id"] for item in found["items"]] == [saved["id"]]

    # The fact is a line in a Markdown file on the volume, written by the unprivileged user.
    month = date.today().strftime("%Y-%m")
    in_container = [*compose, "exec", "-T", "web"]
    line = run([*in_container, "cat", f"/data/memory/agents/scout/memory/log/{month}.md"], env)
    assert "Prefers window seats on long flights" in line
    assert run([*in_container, "id", "-u"], env).strip() != "0"


def test_the_first_staff_login_comes_from_the_environment(stack):
    compose, env, _ = stack
    check = "from django.contrib.auth.models import User as U; print(U.objects.get(username='staff').is_staff)"
    said = run(
        [*compose, "exec", "-T", "web", "memory-console", "manage", "shell", "-c", check], env
    )
    assert said.strip().splitlines()[-1] == "True"  # (the shell first says what it imported)


def test_the_port_is_published_on_loopback_only(stack):
    compose, env, _ = stack
    project = compose[compose.index("-p") + 1]
    names = run([ENGINE, "ps", "--format", "{{.Names}}"], env).split()
    [web] = [name for name in names if name.startswith(project) and "web" in name]
    published = run([ENGINE, "port", web, "8000"], env).strip()
    assert published.startswith("127.0.0.1:"), published


def test_the_worker_runs_beside_the_app(stack):
    compose, env, _ = stack
    running = run([ENGINE, "ps", "--format", "{{.Names}}"], env)
    project = compose[compose.index("-p") + 1]
    names = {name for name in running.split() if name.startswith(project)}
    assert any("worker" in name for name in names), running
    assert any("db" in name for name in names), running


def test_the_image_refuses_the_sample_database_password():
    env = dict(os.environ)
    if ENGINE.endswith("podman") and "CONTAINERS_CONF" not in env and shutil.which("runc"):
        env["CONTAINERS_CONF"] = str(REPO / "deploy/container/containers.conf")
    done = subprocess.run(
        [
            *(ENGINE, "run", "--rm", "-e"),
            "DATABASE_URL=postgresql://memory:memory-try-out@db:5432/memory",
            *("localhost/memory-console:latest", "web"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "set POSTGRES_PASSWORD" in done.stderr, done.stderr


def test_the_image_refuses_to_start_without_a_database():
    env = dict(os.environ)
    if ENGINE.endswith("podman") and "CONTAINERS_CONF" not in env and shutil.which("runc"):
        env["CONTAINERS_CONF"] = str(REPO / "deploy/container/containers.conf")
    done = subprocess.run(
        [ENGINE, "run", "--rm", "localhost/memory-console:latest", "web"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if "image not known" in done.stderr or "Unable to find" in done.stderr:
        pytest.skip("the image is built by the other tests of this module first")
    assert done.returncode == 2
    assert "DATABASE_URL is not set" in done.stderr
