"""The TypeScript client (clients/typescript) against a live server: its own test script
(`node --test` on the compiled output) drives every call; this checks what it left on disk, and
that the committed types are the ones the OpenAPI schema generates."""

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


def test_typescript_client_against_a_live_server(built, workspace):
    done = subprocess.run(
        ["node", "--test", "dist/test/"],
        cwd=PACKAGE,
        env={
            **os.environ,
            "MEMORY_CONSOLE_URL": workspace.url,
            "MEMORY_CONSOLE_TOKEN": workspace.token,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert "# pass 5" in report and "# skipped 0" in report, report

    root = workspace.memory_root
    project = (root / "projects/apollo/memory/by-agent/scout/profile.md").read_text()
    assert "Zeus ships in June" in project and "May" not in project
    user_logs = list((root / "users/alice/memory/by-agent/scout/log").glob("*.md"))
    assert user_logs and not any("aisle" in path.read_text() for path in user_logs)
