"""The TypeScript client (clients/typescript) against a live server: its own test script
(`node --test` on the compiled output) drives every call; this checks what it left on disk, and
that the committed types are the ones the OpenAPI schema generates."""

import json
import os
import secrets
import subprocess

import pytest

from tests.clients.conftest import PACKAGE
from tests.helpers import REPO, day, run_command, write_memory


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


@pytest.fixture
def own_bot(workspace) -> dict[str, str]:
    """The TypeScript tests' own bot, made fresh for the run (as a person running them against
    their server would): joined to apollo and acting for alice, in a workspace that is not empty
    (scout already saved facts in alice's and apollo's memory). What the tests are told."""
    slug = f"ts-{secrets.token_hex(3)}"
    run_command("bots", "create", slug)
    run_command("bots", "join", slug, "apollo")
    run_command("people", "link", "alice", slug)
    token = run_command("bots", "token", slug, "--name", "ts-tests").strip().splitlines()[-1]
    root = workspace.memory_root
    write_memory(
        root, "users/alice/memory/by-agent/scout/profile.md", f"- ({day(3)}) Takes the train"
    )
    write_memory(
        root, "projects/apollo/memory/by-agent/scout/profile.md", f"- ({day(3)}) Budget fixed"
    )
    run = secrets.token_hex(3)
    return {
        "MEMORY_CONSOLE_TOKEN": token,
        "MEMORY_CONSOLE_RUN": run,
        "MEMORY_CONSOLE_LEARNING": "on",  # the workspace fixture's learner: reports are queued
        "bot": slug,
    }


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


def test_typescript_client_against_a_live_server(built, workspace, own_bot):
    bot, run = own_bot.pop("bot"), own_bot["MEMORY_CONSOLE_RUN"]
    report = node_tests(workspace, "dist/test/", **own_bot)
    # The ticket test (tickets.test.ts) needs a server with ROOM_TICKET_KEY: run on its own below.
    assert "# pass 7" in report and "# skipped 1" in report, report
    assert "- a private room's ticket must sign private # SKIP" in report

    root = workspace.memory_root
    project = (root / f"projects/apollo/memory/by-agent/{bot}/profile.md").read_text()
    assert "Zeus ships in June" in project and "May" not in project
    assert "mark=wrong" in project  # the feedback call marked it
    user_logs = list((root / f"users/alice/memory/by-agent/{bot}/log").glob("*.md"))
    assert user_logs and not any("aisle" in path.read_text() for path in user_logs)
    private = "".join(p.read_text() for p in (root / f"rooms/board-ts-{run}").rglob("*.md"))
    assert "Q3 numbers come out on Friday" in private
    assert "Standup" not in private
    oat = (root / f"users/alice/memory/by-agent/{bot}/profile.md").read_text()
    assert "Drinks oat milk" in oat  # the memory tool's create
    # scout's facts are untouched
    assert "Takes the train" in (root / "users/alice/memory/by-agent/scout/profile.md").read_text()


def test_typescript_client_in_a_private_room_with_room_tickets(built, workspace, own_bot, settings):
    from memstore.rooms.tickets import room_ticket

    bot, run = own_bot.pop("bot"), own_bot["MEMORY_CONSOLE_RUN"]
    settings.ROOM_TICKET_KEY = key = "client-tests-" + "k" * 32
    signed, unsigned = (
        room_ticket(key=key, bot=bot, room_id=f"board-ts-{run}", kind="group", private=private)
        for private in (True, False)
    )
    tickets = json.dumps({"signed": signed, "unsigned": unsigned})
    report = node_tests(
        workspace, "dist/test/tickets.test.js", MEMORY_CONSOLE_TICKETS=tickets, **own_bot
    )
    assert "ok 1 - a private room's ticket must sign private\n" in report, report
    assert "# pass 1" in report and "# skipped 0" in report, report
    room = workspace.memory_root / f"rooms/board-ts-{run}/memory/by-agent/{bot}"
    assert "Q3 numbers come out on Friday" in "".join(p.read_text() for p in room.rglob("*.md"))
