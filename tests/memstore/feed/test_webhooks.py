"""Signed webhooks against a real receiver on loopback: each delivery's signature checks out
with the endpoint's secret, an endpoint gets only what its audience may read, a refused
delivery is retried by the durable queue, and across a worker's restart each event arrives
exactly once, with one event id however often it was sent."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection

from memstore.facts.paths import Scope
from memstore.feed.endpoints import deliveries_recent, endpoint_add, endpoints_list
from memstore.feed.signing import EVENT_HEADER, SIGNATURE_HEADER, signature_valid
from memstore.index.events import dispatch_wanted, events_kick_wait
from memstore.privacy.erase import fact_erase, reach_of_bot
from memstore.registry.bots import bot_create, project_join
from memstore.store.services import fact_remember
from tests.helpers import worker_run

pytestmark = pytest.mark.django_db(transaction=True)

APOLLO_A = Scope("project", "apollo").shard("a")


class Receiver:
    """A webhook receiver on loopback: checks every signature, answers 500 while `down`, and
    counts each accepted event id."""

    def __init__(self) -> None:
        self.secret = ""
        self.down = False
        self.accepted: list[dict] = []
        self.refused = 0
        self.bad_signatures = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                signed = self.headers.get(SIGNATURE_HEADER, "")
                if not signature_valid(secret=receiver.secret, header=signed, body=body):
                    receiver.bad_signatures += 1
                    self.send_response(400)
                elif receiver.down:
                    receiver.refused += 1
                    self.send_response(500)
                else:
                    payload = json.loads(body)
                    assert self.headers[EVENT_HEADER] == str(payload["id"])
                    receiver.accepted.append(payload)
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def texts(self) -> list[str | None]:
        return [p["event"]["text"] for p in self.accepted]


@pytest.fixture(autouse=True)
def empty_queue():
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE procrastinate_jobs, procrastinate_periodic_defers, procrastinate_workers "
            "CASCADE"
        )


@pytest.fixture
def receiver():
    receiver = Receiver()
    yield receiver
    receiver.server.shutdown()


@pytest.fixture
def team(memory_root):
    for slug in ("a", "b"):
        bot_create(slug=slug)
        project_join(bot=slug, project="apollo")


def deliver() -> None:
    """What a worker does after a write's kick: one dispatch run, then the deliveries."""
    assert events_kick_wait(timeout=60)  # the writes' kicks are queued before the worker starts
    dispatch_wanted()
    worker_run(["webhooks"])


def test_bot_b_receives_a_project_change_by_bot_a_signed_and_nothing_it_may_not_read(
    team, receiver
):
    endpoint = endpoint_add(owner_kind="bot", owner="b", url=receiver.url, by="boss")
    receiver.secret = endpoint.secret
    fact_remember(shard=APOLLO_A, text="Launch is on May 4", by="a", via="api")
    fact_remember(shard=Scope("user", "alice").shard("a"), text="Alice likes tea", by="a")
    fact_remember(shard=Scope("bot", "a").shard("a"), text="A's own note", by="a")

    deliver()

    assert receiver.bad_signatures == 0
    assert receiver.texts() == ["Launch is on May 4"]
    (payload,) = receiver.accepted
    assert (payload["event"]["type"], payload["event"]["scope"]) == ("add", "project:apollo")
    assert [(d.state, d.attempts) for d in deliveries_recent()] == [("delivered", 1)]
    assert (endpoints_list()[0].delivered, endpoints_list()[0].secret) == (1, "")


def test_each_event_arrives_once_across_a_worker_restart_and_an_erase_leaves_no_text(
    team, receiver, settings
):
    settings.WEBHOOK_RETRY_WAIT = 3600  # a refused delivery waits: the worker stops meanwhile
    endpoint = endpoint_add(owner_kind="project", owner="apollo", url=receiver.url, by="boss")
    receiver.secret = endpoint.secret
    receiver.down = True
    fact_remember(shard=APOLLO_A, text="Budget is 40k", by="a")
    fact_remember(shard=APOLLO_A, text="Vendor is Acme", by="a")

    deliver()  # both refused; the worker stops with their retries scheduled
    assert (receiver.refused, receiver.accepted) == (2, [])
    assert {d.state for d in deliveries_recent()} == {"pending"}
    fact_erase(reach=reach_of_bot("a"), text="Vendor is Acme", by="ops", via="tool")

    receiver.down = False
    with connection.cursor() as cursor:  # the retries' time has come: a new worker starts
        cursor.execute("UPDATE procrastinate_jobs SET scheduled_at = now() WHERE status = 'todo'")
    deliver()
    deliver()  # a further run sends nothing twice

    ids = [p["id"] for p in receiver.accepted]
    assert sorted(ids) == sorted(set(ids))
    assert len(ids) == 3  # two adds and the erase's removal
    by_id = {p["id"]: p["event"] for p in receiver.accepted}
    assert [(by_id[i]["type"], by_id[i]["text"]) for i in sorted(by_id)] == [
        ("add", "Budget is 40k"),
        ("add", None),  # erased while its delivery waited: sent without its text
        ("erase", None),
    ]
    assert "Acme" not in json.dumps(receiver.accepted)
    # The two refused once, then delivered; the erase's event delivered at once.
    assert sorted((d.state, d.attempts) for d in deliveries_recent()) == [
        ("delivered", 1),
        ("delivered", 2),
        ("delivered", 2),
    ]


def test_registering_an_endpoint_says_what_is_wrong(team):
    from memstore.errors import InvalidName, UnknownBot

    with pytest.raises(InvalidName, match="http:// or https://"):
        endpoint_add(owner_kind="bot", owner="b", url="ftp://example.org", by="boss")
    with pytest.raises(UnknownBot):
        endpoint_add(owner_kind="bot", owner="nobody", url="http://example.org", by="boss")
    with pytest.raises(InvalidName, match="No bot has joined project 'zeus'"):
        endpoint_add(owner_kind="project", owner="zeus", url="http://example.org", by="boss")
    with pytest.raises(InvalidName, match="a bot or a project"):
        endpoint_add(owner_kind="room", owner="x", url="http://example.org", by="boss")


def test_a_save_through_the_api_wakes_the_dispatcher_by_itself(team, receiver):
    from memstore.registry.tokens import token_create
    from tests.helpers import BotClient

    endpoint = endpoint_add(owner_kind="bot", owner="b", url=receiver.url, by="boss")
    receiver.secret = endpoint.secret
    a_team = BotClient(
        token=token_create(bot="a").token,
        room_id="team",
        room_kind="group",
        person="",
        projects="apollo",
    )
    assert (
        a_team.post(
            "/facts", {"text": "Demo on Friday", "scope": "project", "project": "apollo"}
        ).status
        == 201
    )

    assert events_kick_wait(timeout=60)  # the write's kick queued a dispatch run: no one else did
    worker_run(["webhooks"])

    assert receiver.texts() == ["Demo on Friday"]
    assert receiver.accepted[0]["event"]["shard_bot"] == "a"
