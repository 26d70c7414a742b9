"""Running the product as separate OS processes, the way a deployment does: app servers under
gunicorn (as `./dev serve` starts them) and learning workers (`manage.py learning_worker`),
all pointed at one database by DATABASE_URL and one MEMORY_ROOT; and a small HTTP client that
speaks to them for one bot in one room."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[2]
SECRET = "deploy-test-secret-key-0123456789-abcdefghijklmnop"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Process:
    """A child process with its output in a log file (shown when a test fails)."""

    name: str
    popen: subprocess.Popen
    log: Path
    signalled: bool = False

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def signal_stop(self) -> None:
        """Ask it to stop, once (gunicorn: quick shutdown; a worker: finish the job in hand)."""
        if self.popen.poll() is None and not self.signalled:
            self.popen.send_signal(signal.SIGINT)
            self.signalled = True

    def stop(self, patience: float = 1.5) -> None:
        """Stop it and wait; after `patience` seconds its whole process group is killed (a
        gthread worker can take several seconds to exit; nothing here needs a clean exit)."""
        if self.popen.poll() is None:
            self.signal_stop()
            try:
                self.popen.wait(patience)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(5)


def spawn(name: str, args: list[str], env: dict[str, str], logs: Path) -> Process:
    log = logs / f"{name}.log"
    popen = subprocess.Popen(
        [sys.executable, *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "SECRET_KEY": SECRET, **env},
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, so stop() can end its workers too
    )
    return Process(name, popen, log)


def app_server(name: str, port: int, env: dict[str, str], logs: Path) -> Process:
    """gunicorn with the repository's gunicorn.conf.py, as `./dev serve` runs it; preloaded
    (the app imported once, then the workers forked) to start faster."""
    args = ["-m", "gunicorn", "memoryconsole.wsgi", "--config", "gunicorn.conf.py"]
    return spawn(name, [*args, "--bind", f"127.0.0.1:{port}", "--preload"], env, logs)


def learning_worker(name: str, env: dict[str, str], logs: Path) -> Process:
    """`manage.py learning_worker`, as `./dev serve` runs it (it outlives a lost database)."""
    args = ["manage.py", "learning_worker", "--skip-checks", "--queues", "learning"]
    return spawn(name, args, env, logs)


def wait_until_up(process: Process, base_url: str, timeout: float = 90) -> None:
    """Wait until the server answers its health check (or fail with its log)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise AssertionError(f"{process.name} exited:\n{process.output()}")
        try:
            with urllib.request.urlopen(f"{base_url}/api/v1/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"{process.name} did not come up:\n{process.output()}")


@dataclass
class Answer:
    status: int
    body: dict


@dataclass
class Bot:
    """Calls one server's API over HTTP as one bot, from one room."""

    base_url: str
    token: str
    room_id: str = "dm-alice"
    room_kind: str = "direct"
    person: str = "alice"
    projects: list[str] = field(default_factory=lambda: ["apollo"])

    def call(self, method: str, path: str, body: object = None, **query) -> Answer:
        url = f"{self.base_url}/api/v1{path}"
        if query:
            url += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        headers = {
            "Authorization": f"Bearer {self.token}",
            "X-Room-Id": self.room_id,
            "X-Room-Kind": self.room_kind,
            "X-Person": self.person,
            "X-Projects": ",".join(self.projects),
            "Content-Type": "application/json",
        }
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return Answer(answer.status, json.loads(answer.read() or b"{}"))
        except urllib.error.HTTPError as error:
            return Answer(error.code, json.loads(error.read() or b"{}"))

    def remember(self, text: str, **fields) -> Answer:
        return self.call("POST", "/facts", {"text": text, **fields})

    def texts(self, **filters) -> set[str]:
        """Every fact text this room may read, through all pages of the list."""
        found: set[str] = set()
        offset = 0
        while True:
            answer = self.call("GET", "/facts", limit=200, offset=offset, **filters)
            assert answer.status == 200, answer
            found.update(item["text"] for item in answer.body["items"])
            if not answer.body["has_more"]:
                return found
            offset += len(answer.body["items"])

    def recall(self, query: str) -> set[str]:
        answer = self.call("GET", "/recall", query=query, limit=50)
        assert answer.status == 200, answer
        return {item["text"] for item in answer.body["items"]}
