"""Who is calling, remembered per process, across processes: two app servers of two gunicorn
workers each (four processes remembering tokens, person links and room bindings) are warmed
with many calls, then a token is revoked, a person unlinked and a room reset and bound to
someone else from this process (as the console does). The very next call on each server, and
every call after it on every worker, is refused: the write moved the authorization generation
(memstore/registry/generation.py) before it returned."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link, person_unlink
from memstore.registry.tokens import token_create, token_revoke
from memstore.rooms.tickets import room_reset
from tests.deploy.processes import Bot, Process, app_server, free_port, wait_until_up
from tests.helpers import database_url, log

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CALLS = 24  # per server and step: with two workers each, every worker serves some


@pytest.fixture
def servers(memory_root: Path, tmp_path: Path) -> Iterator[list[str]]:
    env = {
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "VAR_DIR": str(tmp_path / "var"),
        "EMBEDDINGS": "none",
    }
    ports = [free_port(), free_port()]
    processes: list[Process] = [
        app_server(f"server{i}", port, env, tmp_path) for i, port in enumerate(ports)
    ]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for process, url in zip(processes, urls, strict=True):
            wait_until_up(process, url)
        yield urls
    finally:
        for process in processes:
            process.stop()


@pytest.fixture
def token(memory_root: Path) -> str:
    bot_create(slug="a")
    project_join(bot="a", project="apollo")
    for person in ("alice", "bob"):
        person_add(name=person)
        person_link(person=person, bot="a")
    log(memory_root, "bot", "a", "2026-11", "- (2026-11-01) Prefers tea over coffee", bot="a")
    return token_create(bot="a").token


def statuses(urls: list[str], token: str, person: str = "alice") -> list[set[int]]:
    """Each server's answers to CALLS recalls (its workers take turns as they accept)."""
    return [
        {
            Bot(url, token, person=person).call("GET", "/recall", query="tea").status
            for _ in range(CALLS)
        }
        for url in urls
    ]


def first_then_rest(urls: list[str], token: str, person: str = "alice") -> list[int]:
    """The very next call's status on each server, then every status of many more."""
    first = [
        Bot(url, token, person=person).call("GET", "/recall", query="tea").status for url in urls
    ]
    return first + sorted(set().union(*statuses(urls, token, person)))


def test_a_revoked_token_is_refused_on_the_next_call_on_every_worker(servers, token):
    assert statuses(servers, token) == [{200}, {200}]
    token_revoke(prefix=token[:12])
    assert first_then_rest(servers, token) == [401, 401, 401]


def test_an_unlinked_person_is_refused_on_the_next_call_on_every_worker(servers, token):
    assert statuses(servers, token) == [{200}, {200}]
    person_unlink(person="alice", bot="a")
    assert first_then_rest(servers, token) == [403, 403, 403]


def test_a_reset_room_is_judged_afresh_on_the_next_call_on_every_worker(servers, token):
    assert statuses(servers, token) == [{200}, {200}]  # dm-alice is alice's direct room
    room_reset(room_id="dm-alice")
    # bob's call binds the room to bob; alice's next call on either server is now refused
    assert Bot(servers[0], token, person="bob").call("GET", "/recall", query="tea").status == 200
    assert first_then_rest(servers, token) == [409, 409, 409]
