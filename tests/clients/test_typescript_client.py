"""The TypeScript client (clients/typescript) against a live server: its own test script
(`node --test` on the compiled output) drives every call; this checks what it left on disk, and
that the committed types are the ones the OpenAPI schema generates."""

import json
import os
import subprocess

from tests.clients.conftest import PACKAGE
from tests.helpers import REPO


def test_committed_types_match_the_openapi_schema(built, tmp_path):
    fresh = tmp_path / "schema.d.ts"
    generate = PACKAGE / "node_modules" / ".bin" / "openapi-typescript"
    schema = REPO / "tests" / "api" / "openapi.json"
    done = subprocess.run(
        [str(generate), str(schema), "--output", str(fresh)],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert fresh.read_text() == (PACKAGE / "src" / "schema.d.ts").read_text(), (
        "clients/typescript/src/schema.d.ts is out of date with tests/api/openapi.json: "
        "run `npm run generate` in clients/typescript and commit it"
    )


def node_tests(workspace, *paths: str, **env: str) -> str:
    """`node --test` on the compiled tests against the live server; what it reported."""
    done = subprocess.run(
        ["node", "--test", *paths],
        cwd=PACKAGE,
        env={
            **os.environ,
            "MEMORY_CONSOLE_URL": workspace.url,
            "MEMORY_CONSOLE_TOKEN": workspace.token,
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    return report


def test_typescript_client_against_a_live_server(built, workspace):
    report = node_tests(workspace, "dist/test/")
    # The ticket test (tickets.test.ts) needs a server with ROOM_TICKET_KEY: run on its own below.
    assert "# pass 6" in report and "# skipped 1" in report, report
    assert "- a private room's ticket must sign private # SKIP" in report

    root = workspace.memory_root
    project = (root / "projects/apollo/memory/by-agent/scout/profile.md").read_text()
    assert "Zeus ships in June" in project and "May" not in project
    assert "mark=wrong" in project  # the feedback call marked it
    user_logs = list((root / "users/alice/memory/by-agent/scout/log").glob("*.md"))
    assert user_logs and not any("aisle" in path.read_text() for path in user_logs)
    private = "".join(p.read_text() for p in (root / "rooms/board-ts").rglob("*.md"))
    assert "Q3 numbers come out on Friday" in private
    assert "Standup" not in private


def test_typescript_client_in_a_private_room_with_room_tickets(built, workspace, settings):
    from memstore.rooms.tickets import room_ticket

    settings.ROOM_TICKET_KEY = key = "client-tests-" + "k" * 32
    signed, unsigned = (
        room_ticket(key=key, bot="scout", room_id="board-ts", kind="group", private=private)
        for private in (True, False)
    )
    tickets = json.dumps({"signed": signed, "unsigned": unsigned})
    report = node_tests(workspace, "dist/test/tickets.test.js", MEMORY_CONSOLE_TICKETS=tickets)
    assert "ok 1 - a private room's ticket must sign private\n" in report, report
    assert "# pass 1" in report and "# skipped 0" in report, report
    room = workspace.memory_root / "rooms/board-ts/memory/by-agent/scout"
    assert "Q3 numbers come out on Friday" in "".join(p.read_text() for p in room.rglob("*.md"))
