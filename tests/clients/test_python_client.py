"""The Python client (clients/python) against a live server: every call, sync and async, with
what a bot would notice (the files on disk, the errors' codes)."""

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from memory_console_client import (
    AsyncClient,
    AuthenticationError,
    Client,
    ConflictError,
    ConnectionFailedError,
    InvalidRequestError,
    MemoryConsoleError,
    NotFoundError,
    PermissionDeniedError,
    ServerError,
    UnavailableError,
)

from tests.helpers import REPO, run_command


def lines(path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.startswith("- (")]


def test_every_call_of_the_sync_client(workspace):
    root = workspace.memory_root
    with Client(
        workspace.url, workspace.token, "dm-42", "direct", person="alice", projects=["apollo"]
    ) as memory:
        before = memory.prompt()["text"]

        saved = memory.remember(
            "Prefers window seats", scope="user", type="preference", idempotency_key="m-981-1"
        )
        assert saved["existed"] is False
        assert saved["file"] == f"users/alice/memory/by-agent/scout/log/{saved['date'][:7]}.md"
        [line] = lines(root / saved["file"])
        assert line.startswith(f"- ({saved['date']}) Prefers window seats <!-- type=preference")
        retried = memory.remember(
            "Prefers window seats", scope="user", type="preference", idempotency_key="m-981-1"
        )
        assert retried == saved

        launch = memory.remember(
            "Apollo launches on 3 March", scope="project", project="apollo", tier="profile"
        )
        assert launch["file"] == "projects/apollo/memory/by-agent/scout/profile.md"
        again = memory.remember(
            "apollo launches on 3 march", scope="project", project="apollo", tier="profile"
        )
        assert again["existed"] is True and again["id"] == launch["id"]

        page = memory.list_facts()
        assert {f["text"] for f in page["items"]} == {
            "Prefers window seats",
            "Apollo launches on 3 March",
        }
        assert (page["total"], page["has_more"]) == (2, False)
        only = memory.list_facts(scope="project", project="apollo")
        assert [f["id"] for f in only["items"]] == [launch["id"]]

        hits = memory.recall("window seat")
        assert [f["text"] for f in hits["items"]][:1] == ["Prefers window seats"]

        changes = memory.prompt_changes(before)
        assert any("Apollo launches on 3 March" in line for line in changes["added"])
        assert "Apollo launches on 3 March" in memory.prompt()["text"]

        moved = memory.edit(
            launch["id"], "Apollo launches on 10 March", expected_text="Apollo launches on 3 March"
        )
        assert moved["text"] == "Apollo launches on 10 March"
        assert "10 March" in (root / launch["file"]).read_text()
        with pytest.raises(ConflictError) as stale:
            memory.edit(moved["id"], "Apollo launches in April", expected_text="3 March")
        assert (stale.value.status, stale.value.code) == (409, "conflict")
        assert stale.value.detail["current"] == "Apollo launches on 10 March"

        marked = memory.feedback(moved["id"], "wrong")
        assert (marked["verb"], marked["copies"], marked["fact"]["meta"]["mark"]) == (
            "wrong",
            1,
            "wrong",
        )
        assert "10 March" not in memory.prompt()["text"]
        assert "mark=wrong" in (root / launch["file"]).read_text()

        gone = memory.forget(text="PREFERS  window seats")
        assert gone["forgotten"] == 1 and gone["remaining"] == []
        assert "window seats" not in (root / saved["file"]).read_text()
        with pytest.raises(NotFoundError) as missing:
            memory.forget(id=saved["id"])
        assert missing.value.code == "not_found"

        # Both facts above are gone from prompts now (one marked wrong, one forgotten).
        memory.remember("Standup is at 9:30 on Mondays", scope="project", project="apollo")
        section = memory.prompt()
        receipt = memory.report_exchange(
            "Can we move standup to 9:30?",
            "Done, moved.",
            message_id="981",
            reply_id="982",
            digest=section["digest"],
        )
        assert (receipt["status"], receipt["repeated"]) == ("queued", False)
        injected = sum(len(block["facts"]) for block in section["blocks"])
        assert receipt["sources"] == {
            "retrieved": 1,  # the recall above, though its fact was forgotten since
            "injected": injected,
            "cited": 0,
            "digest": section["digest"],
            "note": "",
        }
        assert injected > 0
        repeat = memory.report_exchange(
            "Can we move standup to 9:30?", "Done, moved.", message_id="981", reply_id="982"
        )
        assert (repeat["id"], repeat["repeated"]) == (receipt["id"], True)


def test_refusals_raise_the_api_code(workspace):
    url, token = workspace.url, workspace.token
    with Client(url, token, "team", "group") as team:
        with pytest.raises(PermissionDeniedError) as refused:
            team.remember("Alice likes jazz", scope="user")
        assert (refused.value.status, refused.value.code) == (403, "forbidden")
        assert "direct rooms" in refused.value.message
        with pytest.raises(InvalidRequestError) as invalid:
            team.remember("x" * 501)
        assert invalid.value.code == "invalid_request"
        assert invalid.value.detail["errors"][0]["where"] == "body.text"

        stranger = team.in_room("dm-zed", "direct", person="zed")
        with pytest.raises(PermissionDeniedError) as unknown:
            stranger.prompt()
        assert unknown.value.code == "person_unknown"

        team.remember("Standup is at 9:30")  # binds "team" as a group room
        with pytest.raises(ConflictError) as rekinded:
            team.in_room("team", "direct", person="alice").list_facts()
        assert rekinded.value.code == "room_conflict"

    with Client(url, "mct_not-a-real-token", "team", "group") as intruder:
        with pytest.raises(AuthenticationError) as denied:
            intruder.recall("anything")
        assert (denied.value.status, denied.value.code) == (401, "unauthorized")
        assert isinstance(denied.value, MemoryConsoleError)

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    with Client(closed, token, "team", "group") as nowhere:
        with pytest.raises(ConnectionFailedError) as down:
            nowhere.prompt()
        assert (down.value.status, down.value.code) == (0, "connection_failed")


def test_bad_arguments_are_named_before_anything_is_sent(workspace):
    with pytest.raises(TypeError, match="projects must be a list"):
        Client(workspace.url, workspace.token, "dm-42", "direct", "alice", projects="apollo")
    with pytest.raises(ValueError, match="base_url must start with http"):
        Client("127.0.0.1:8000", workspace.token, "dm-42", "direct", "alice")
    with Client(workspace.url, workspace.token, "dm-42", "direct", "alice") as memory:
        with pytest.raises(ValueError, match="exactly one of id= .* and text="):
            memory.forget()
        with pytest.raises(ValueError, match="16 hex digits"):
            memory.edit("../../me", "x")
        with pytest.raises(TypeError, match="room_private must be True or False, not 'yes'"):
            memory.in_room("board", "group", room_private="yes")
        with pytest.raises(ValueError, match="room_private=True is for a group room .* direct"):
            memory.in_room("dm-43", "direct", "alice", room_private=True)


def test_every_call_of_the_async_client(workspace):
    root = workspace.memory_root

    async def conversation() -> None:
        async with AsyncClient(
            workspace.url, workspace.token, "dm-7", "direct", "alice", projects=("apollo",)
        ) as memory:
            before = await memory.prompt()
            texts = [f"Owns a {pet}" for pet in ("cat", "dog", "parrot", "tortoise")]
            saved = await asyncio.gather(*(memory.remember(t, scope="user") for t in texts))
            assert {s["text"] for s in saved} == set(texts)
            on_disk = (root / saved[0]["file"]).read_text()
            assert all(t in on_disk for t in texts)

            page = await memory.list_facts(limit=2)
            assert (len(page["items"]), page["total"], page["has_more"]) == (2, 4, True)
            hits = await memory.recall("parrot")
            assert hits["items"][0]["text"] == "Owns a parrot"
            changes = await memory.prompt_changes(before["text"])
            assert len(changes["added"]) >= 4

            parrot = hits["items"][0]
            edited = await memory.edit(parrot["id"], "Owns a grey parrot")
            assert "Owns a grey parrot" in (root / parrot["file"]).read_text()
            erased = await memory.forget(id=edited["id"], erase=True)
            assert erased["forgotten"] == 1 and erased["erased"] is not None
            assert "parrot" not in (root / parrot["file"]).read_text()

            receipt = await memory.report_exchange(
                "My dog is called Rex", "Nice name!", message_id="m1", reply_id="r1"
            )
            assert receipt["status"] == "queued"

            group = memory.in_room("team", "group")
            with pytest.raises(PermissionDeniedError) as refused:
                await group.list_facts(scope="user")
            assert refused.value.code == "forbidden"

    asyncio.run(conversation())


class Proxy(BaseHTTPRequestHandler):
    """What can stand between a bot and the API: a proxy answering 502 in HTML, and the API
    itself answering 503 while its database is down."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/api/v1/prompt"):
            body, kind, extra = b"<html><h1>502 Bad Gateway</h1></html>", "text/html", {}
            self.send_response(502)
        else:
            problem = {"code": "database_unavailable", "message": "Retry in 2 s.", "detail": {}}
            body, kind, extra = (
                json.dumps(problem).encode(),
                "application/json",
                {"Retry-After": "2"},
            )
            self.send_response(503)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def proxy():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_answers_that_are_not_the_apis_still_raise_with_what_came(proxy):
    with Client(proxy, "mct_x", "team", "group") as memory:
        with pytest.raises(ServerError) as bad_gateway:
            memory.prompt()
        assert (bad_gateway.value.status, bad_gateway.value.code) == (502, "http_error")
        assert "502 Bad Gateway" in bad_gateway.value.message
        with pytest.raises(UnavailableError) as down:
            memory.recall("anything")
        assert (down.value.code, down.value.retry_after) == ("database_unavailable", 2.0)


WRITER = """
import sys
from memory_console_client import Client

url, token, n = sys.argv[1], sys.argv[2], sys.argv[3]
with Client(url, token, "dm-42", "direct", person="alice") as memory:
    for i in range(10):
        memory.remember(f"Writer {n} note {i}", scope="user")
"""


def test_writers_in_several_processes_lose_nothing(workspace):
    env = {**os.environ, "PYTHONPATH": str(REPO / "clients" / "python" / "src")}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, workspace.url, workspace.token, str(n)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for writer in writers:
        assert writer.wait(120) == 0, writer.stderr.read()
    [log] = (workspace.memory_root / "users/alice/memory/by-agent/scout/log").glob("*.md")
    written = {line.split(") ", 1)[1].split(" <!--")[0] for line in lines(log)}
    assert written == {f"Writer {n} note {i}" for n in range(4) for i in range(10)}
    with Client(workspace.url, workspace.token, "dm-42", "direct", person="alice") as memory:
        assert memory.list_facts(scope="user", limit=200)["total"] == 40


def test_a_server_that_never_answers_times_out_with_code_timeout():
    with socket.socket() as silent:  # accepts connections (the kernel does), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        memory = Client(url, "mct_x", "team", "group", timeout=0.3)
        with memory, pytest.raises(ConnectionFailedError) as waited:
            memory.prompt()
        assert (waited.value.status, waited.value.code) == (0, "timeout")

        async def wait() -> None:
            async with AsyncClient(url, "mct_x", "team", "group", timeout=0.3) as memory:
                await memory.prompt()

        with pytest.raises(ConnectionFailedError) as awaited:
            asyncio.run(wait())
        assert awaited.value.code == "timeout"


def test_tls_certificates_are_verified(tmp_path):
    """The one TLS context all clients share still checks certificates: a server with a
    self-signed one is refused before anything is sent."""
    import datetime as dt
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}"
        memory = Client(url, "mct_x", "team", "group", timeout=5)
        with memory, pytest.raises(ConnectionFailedError) as refused:
            memory.recall("anything")
        assert refused.value.code == "connection_failed"
        assert "CERTIFICATE_VERIFY_FAILED" in refused.value.message
    finally:
        server.shutdown()
        server.server_close()


def test_until_through_the_client_expires_a_fact_and_an_edit_brings_it_back(workspace):
    from datetime import date, timedelta

    yesterday = (date.today() - timedelta(days=1)).isoformat()
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    with Client(workspace.url, workspace.token, "dm-42", "direct", person="alice") as memory:
        saved = memory.remember("Travelling to Lisbon", until=yesterday, review=tomorrow)
        assert (saved["meta"]["until"], saved["expired"]) == (yesterday, True)
        assert memory.recall("Lisbon")["items"] == []
        only = memory.list_facts(expired=True)["items"]
        assert [f["text"] for f in only] == ["Travelling to Lisbon"]
        assert memory.list_facts(expired=False)["items"] == []
        back = memory.edit(saved["id"], "Travelling to Lisbon", until=tomorrow)
        assert back["expired"] is False
        assert [f["text"] for f in memory.recall("Lisbon")["items"]] == ["Travelling to Lisbon"]
        with pytest.raises(InvalidRequestError, match="until"):
            memory.remember("Soon", until="next week")


TICKET_KEY = "client-tests-" + "k" * 32


def test_a_private_group_room_keeps_what_is_saved_there(workspace):
    root = workspace.memory_root
    with Client(workspace.url, workspace.token, "board", "group", room_private=True) as board:
        saved = board.remember("Q3 numbers come out on Friday")
        assert saved["scope"] == "room"
        assert saved["file"].startswith("rooms/board/memory/by-agent/scout/"), saved["file"]
        [line] = lines(root / saved["file"])
        assert "Q3 numbers come out on Friday" in line
        # Bound private by that call: a later call that does not repeat the claim still reads it.
        later = board.in_room("board", "group")
        assert [f["text"] for f in later.list_facts()["items"]] == ["Q3 numbers come out on Friday"]

        # A shared group room (no room_private) saves to the bot's own memory, as before, and
        # never reads the private conversation's.
        team = board.in_room("team", "group")
        shared = team.remember("Standup is at 9:30")
        assert shared["scope"] == "bot" and not shared["file"].startswith("rooms/")
        assert [f["text"] for f in team.list_facts()["items"]] == ["Standup is at 9:30"]
        # Calling the shared room private afterwards is a conflict, not a quiet rebinding.
        with pytest.raises(ConflictError) as rebound:
            board.in_room("team", "group", room_private=True).list_facts()
        assert rebound.value.code == "room_conflict"

    async def asynchronous() -> None:
        async with AsyncClient(workspace.url, workspace.token, "dm-7", "direct", "alice") as dm:
            huddle = dm.in_room("huddle", "group", room_private=True)
            saved = await huddle.remember("The offsite is in Lisbon")
            assert saved["file"].startswith("rooms/huddle/memory/by-agent/scout/"), saved
            assert "Lisbon" not in json.dumps(await dm.list_facts())

    asyncio.run(asynchronous())
    assert "Lisbon" in "".join(p.read_text() for p in (root / "rooms/huddle").rglob("*.md"))


def test_with_room_tickets_a_private_room_needs_a_ticket_that_signs_it(workspace, settings):
    from memstore.rooms.tickets import room_ticket

    settings.ROOM_TICKET_KEY = TICKET_KEY
    root = workspace.memory_root

    def ticket(room_id: str, private: bool) -> str:
        return room_ticket(
            key=TICKET_KEY, bot="scout", room_id=room_id, kind="group", private=private
        )

    url, token = workspace.url, workspace.token
    unsigned = ticket("board", private=False)
    with Client(url, token, "board", "group", room_private=True, ticket=unsigned) as bot:
        with pytest.raises(AuthenticationError) as refused:
            bot.remember("Q3 numbers come out on Friday")
        assert (refused.value.status, refused.value.code) == (401, "ticket_invalid")
        assert "X-Room-Private" in refused.value.message
    assert not (root / "rooms").exists()

    signed = ticket("board", private=True)
    with Client(url, token, "board", "group", room_private=True, ticket=signed) as board:
        saved = board.remember("Q3 numbers come out on Friday")
        assert saved["file"].startswith("rooms/board/memory/by-agent/scout/"), saved["file"]
        assert "Q3 numbers" in (root / saved["file"]).read_text()
        # A ticket signing private is not one for a call that does not claim it.
        with pytest.raises(AuthenticationError) as unclaimed:
            board.in_room("board", "group", ticket=signed).list_facts()
        assert unclaimed.value.code == "ticket_invalid"


def test_a_read_only_token_reads_and_is_refused_writes_naming_the_grant(workspace):
    token = run_command("bots", "token", "scout", "--scopes", "memory:read").strip()
    with Client(workspace.url, token, "dm-ro", "direct", person="alice") as reader:
        assert reader.list_facts()["items"] == []
        with pytest.raises(PermissionDeniedError) as refused:
            reader.remember("Prefers window seats")
        assert (refused.value.status, refused.value.code) == (403, "missing_grant")
        assert "memory:write is needed" in refused.value.message
        assert refused.value.detail["grant"] == "memory:write"
    assert not list(workspace.memory_root.rglob("*.md"))
