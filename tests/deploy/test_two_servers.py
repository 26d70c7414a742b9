"""Past one machine (SPEC §10): two app servers and a learning worker, each its own OS process,
on one MEMORY_ROOT and one Postgres, as a deployment behind a load balancer runs them.

Bots write through both servers at once, the learner writes into the same files from its own
process, and a person edits files by hand meanwhile. Then: every acknowledged write is in the
files exactly once and no file is torn; both servers list and recall the same memory, hand
edits included, on the very next request; and a bot's lock, held by a third process, stops
writes through either server until it is released.
"""

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from memstore.facts import markdown
from memstore.facts.locks import bot_lock
from memstore.facts.paths import locate
from memstore.models import Exchange
from memstore.recall import embeddings
from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.deploy.processes import (
    Bot,
    Process,
    app_server,
    free_port,
    learning_worker,
    wait_until_up,
)
from tests.helpers import (
    FakeModel,
    Reply,
    database_url,
    is_episode,
    meaning_ready,
    ok,
    prompt_of,
    wait_until,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

HEADER = "# Memory\n\nEdited by hand.\n\n"
QUEUE_TABLES = "procrastinate_jobs, procrastinate_periodic_defers, procrastinate_workers"


@dataclass
class Deployment:
    urls: list[str]
    tokens: dict[str, str]
    root: Path
    processes: list[Process]

    def bot(self, server: int, slug: str = "a", **room) -> Bot:
        return Bot(self.urls[server], self.tokens[slug], **room)


def learned_reply(request: dict) -> Reply:
    """The scripted model: 'Deploy item N' in the message becomes one learned log line."""
    if is_episode(request):
        return ok("NONE")
    message = prompt_of(request).split("[message]\n")[1]
    item = message.split("Deploy item ")[1].split()[0]
    return ok(f"log: Deploy item {item} ships as build{item}x")


def start(root: Path, logs: Path, *, worker: bool, model: FakeModel) -> Deployment:
    # With the worker: recall by words (the model would add load time to every process, not
    # coverage). Without: the bundled model, loaded by a server process on its first recall.
    tokens = {}
    person_add(name="alice", exist_ok=True)
    for slug in ("a", "b"):
        bot_create(slug=slug)
        project_join(bot=slug, project="apollo")
        person_link(person="alice", bot=slug)  # both bots act for alice (the people registry)
        tokens[slug] = token_create(bot=slug, name="deploy").token
    env = {
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(root),
        "VAR_DIR": str(logs / "var"),
        "EMBEDDINGS": "none" if worker else "bge-small",
        "LEARNING_BASE_URL": model.url,
        "LEARNING_MODEL": "scripted",
        "LEARNING_MODE": "write",
        "LEARNING_RETRY_WAIT": "0",
    }
    ports = [free_port(), free_port()]
    processes = [app_server(f"server{i}", port, env, logs) for i, port in enumerate(ports)]
    if worker:
        processes.append(learning_worker("worker", env, logs))
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    for process, url in zip(processes[:2], urls, strict=True):
        wait_until_up(process, url)
    return Deployment(urls, tokens, root, processes)


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    model = FakeModel()
    model.responder = learned_reply
    yield model
    model.close()


def running(root: Path, logs: Path, model: FakeModel, *, worker: bool) -> Iterator[Deployment]:
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {QUEUE_TABLES} CASCADE")
    started = start(root, logs, worker=worker, model=model)
    yield started
    for process in started.processes:
        process.signal_stop()
    for process in started.processes:
        process.stop()
        print(f"--- {process.name} ---\n{process.output()}")  # shown when the test failed
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {QUEUE_TABLES} CASCADE")


@pytest.fixture
def servers(memory_root, tmp_path, fake_model) -> Iterator[Deployment]:
    """Two app servers."""
    yield from running(memory_root, tmp_path, fake_model, worker=False)


@pytest.fixture
def deployment(memory_root, tmp_path, fake_model) -> Iterator[Deployment]:
    """Two app servers and a learning worker."""
    yield from running(memory_root, tmp_path, fake_model, worker=True)


# --- reading the files ---------------------------------------------------------------------


def files_on_disk(root: Path) -> dict[str, list[str]]:
    """Fact texts per memory file, checking that no file is torn and no temp file is left."""
    leftovers = [str(p) for p in root.rglob("*.tmp")]
    assert leftovers == []
    found = {}
    for path in sorted(root.rglob("*.md")):
        rel = str(path.relative_to(root))
        if locate(rel) is None:
            continue
        text = path.read_bytes().decode("utf-8")  # a torn multi-byte character raises
        lines = markdown.parse_text(text)
        assert all(line.raw.endswith("\n") for line in lines), f"torn last line in {rel}"
        found[rel] = [line.fact.text for line in lines if line.fact]
    return found


def readable_by(bot: str, files: dict[str, list[str]]) -> set[str]:
    """What a bot in a direct room with alice, working on apollo, may read."""
    texts = set()
    for rel, facts in files.items():
        if rel.startswith("agents/") and not rel.startswith(f"agents/{bot}/"):
            continue
        texts.update(facts)
    return texts


# --- the people and bots driving the deployment ----------------------------------------------


def api_writers(deploy: Deployment, threads: int = 4, each: int = 12) -> list[str]:
    """Several client threads remember facts through both servers at once; returns the texts
    the servers acknowledged (201)."""
    acknowledged: list[str] = []
    failures: list[str] = []
    scopes = [{"scope": "bot"}, {"scope": "user"}, {"scope": "project", "project": "apollo"}]

    def write(n: int) -> None:
        slug = "b" if n == threads - 1 else "a"
        for i in range(each):
            text = f"Server write {n} {i} from bot {slug}, tagged tag{n}x{i}"
            try:
                answer = deploy.bot((n + i) % 2, slug).remember(text, **scopes[i % 3])
            except Exception as exc:  # a dropped connection counts as a failure, not a crash
                answer = exc
            if getattr(answer, "status", None) == 201:
                acknowledged.append(text)
            else:
                failures.append(f"{text}: {answer!r}")

    workers = [threading.Thread(target=write, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert failures == []
    return acknowledged


def report_exchanges(deploy: Deployment, count: int = 8) -> list[str]:
    """Exchanges reported through both servers (two per room: no episode call); returns what
    the learner will save."""
    for n in range(count):
        bot = deploy.bot(n % 2, room_id=f"dm-alice-{n // 2}")
        body = {
            "message": f"Deploy item {n} is ready for review, can you keep track of it?",
            "reply": "Noted.",
            "message_id": f"m{n}",
            "reply_id": f"r{n}",
        }
        answer = bot.call("POST", "/exchanges", body)
        assert (answer.status, answer.body["status"]) == (202, "queued"), answer
    return [f"Deploy item {n} ships as build{n}x" for n in range(count)]


def hand_editor(deploy: Deployment, edits: int = 8) -> list[str]:
    """A person edits bot a's profile by hand (adds lines, rewrites one) while the bots write;
    after each save, both servers must list exactly the hand-written facts on the next request.
    Returns the hand-written texts the file ends with."""
    path = deploy.root / "agents/a/memory/profile.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    today = date.today().isoformat()
    for k in range(edits):
        lines.append(f"Hand fact {k}")
        if k % 3 == 2:
            lines[k - 1] = f"Hand fact {k - 1} corrected"
        path.write_text(HEADER + "".join(f"- ({today}) {t}\n" for t in lines))
        for server in (0, 1):
            seen = deploy.bot(server).texts(scope="bot", q="Hand fact")
            assert seen == set(lines), f"server {server} after hand edit {k}"
    return lines


def learned(count: int) -> bool:
    statuses = list(Exchange.objects.values_list("status", flat=True))
    return len(statuses) == count and set(statuses) == {"done"}


# --- the tests -----------------------------------------------------------------------------


def test_two_servers_and_a_worker_lose_nothing_and_agree(deployment):
    results: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def edit_by_hand() -> None:
        try:
            results["hand"] = hand_editor(deployment)
        except BaseException as exc:  # re-raised below, in the test's own thread
            errors.append(exc)

    person = threading.Thread(target=edit_by_hand)
    person.start()
    results["learned"] = report_exchanges(deployment)
    results["api"] = api_writers(deployment)
    person.join(120)
    if errors:
        raise errors[0]
    wait_until(lambda: learned(len(results["learned"])), timeout=60)

    files = files_on_disk(deployment.root)
    on_disk = [text for texts in files.values() for text in texts]
    expected = results["api"] + results["learned"] + results["hand"]
    assert sorted(on_disk) == sorted(expected)  # nothing lost, nothing twice, nothing else
    learned_file = f"users/alice/memory/by-agent/a/log/{timezone.localdate():%Y-%m}.md"
    assert set(results["learned"]) <= set(files[learned_file])  # the API wrote here too

    sample = results["api"][::5] + results["learned"][::3]
    for slug in ("a", "b"):
        readable = readable_by(slug, files)
        lists = [deployment.bot(server, slug).texts() for server in (0, 1)]
        assert lists[0] == lists[1] == readable
        found = {
            text: [
                text in deployment.bot(server, slug).recall(text.split()[-1]) for server in (0, 1)
            ]
            for text in sample
        }
        assert found == {text: [text in readable] * 2 for text in sample}


def test_a_write_or_hand_edit_is_seen_by_the_other_server_on_the_next_request(servers):
    if embeddings.bge_small_dir() is not None:  # by meaning too (the model is installed)
        assert servers.bot(0).remember("Prefers tea over coffee", scope="user").status == 201
        for _ in range(4):  # each of server 1's workers likely caches the scope's vectors now
            assert servers.bot(1).recall("tea") == {"Prefers tea over coffee"}
        assert servers.bot(0).remember("Booked a flight to Lisbon", scope="user").status == 201
        meaning_ready()  # what a worker does next: the servers never embed a fact themselves
        answer = servers.bot(1).call("GET", "/recall", query="plane ticket")
        assert answer.body["mode"] == "hybrid"
        assert answer.body["items"][0]["text"] == "Booked a flight to Lisbon"

    for n in range(6):
        writer, reader = servers.bot(n % 2), servers.bot(1 - n % 2)
        text = f"Relay fact {n} about the harbour"
        assert writer.remember(text, scope="user").status == 201
        assert text in reader.texts(q=f"Relay fact {n}")
        assert text in reader.recall(f"relay fact {n} harbour")

    month = f"{timezone.localdate():%Y-%m}"
    path = servers.root / f"users/alice/memory/by-agent/a/log/{month}.md"
    path.write_text(path.read_text().replace("Relay fact 2 about", "Relay fact 2, fixed by hand,"))
    for server in (0, 1):
        seen = servers.bot(server).texts(q="Relay fact 2")
        assert seen == {"Relay fact 2, fixed by hand, the harbour"}
    assert servers.bot(0).remember("Relay fact 6 after the edit", scope="user").status == 201
    texts = [line.fact.text for line in markdown.parse_text(path.read_text()) if line.fact]
    assert [t for t in texts if t.startswith("Relay")] == [
        "Relay fact 0 about the harbour",
        "Relay fact 1 about the harbour",
        "Relay fact 2, fixed by hand, the harbour",
        *(f"Relay fact {n} about the harbour" for n in range(3, 6)),
        "Relay fact 6 after the edit",
    ]


def test_a_bots_lock_holds_across_both_servers(servers):
    """A third process holds bot a's lock: writes for a through either server wait for it;
    bot b's writes do not."""
    answers: dict[int, int] = {}

    def remember(server: int) -> None:
        answers[server] = servers.bot(server).remember(f"Locked write via {server}").status

    with bot_lock("a"):
        waiting = [threading.Thread(target=remember, args=(server,)) for server in (0, 1)]
        for thread in waiting:
            thread.start()
        other = servers.bot(1, "b").remember("Bot b is not held up")
        time.sleep(1.5)
        assert [thread.is_alive() for thread in waiting] == [True, True]
        assert not (servers.root / "agents/a").exists()
    for thread in waiting:
        thread.join(30)
    assert other.status == 201
    assert answers == {0: 201, 1: 201}
    files = files_on_disk(servers.root)
    log = f"agents/a/memory/log/{timezone.localdate():%Y-%m}.md"
    assert sorted(files[log]) == ["Locked write via 0", "Locked write via 1"]
