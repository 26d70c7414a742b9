"""The client examples of docs/api.md section 6, run as printed against a live server: the two
Python blocks as scripts, the TypeScript block compiled with tsc in a project that installed the
package's tarball, as the guide says; and the private-room option of the section 9 client to
paste (its other calls are run by tests/api/test_live.py)."""

import json
import os
import re
import subprocess
import sys

from tests.clients.conftest import PACKAGE
from tests.helpers import REPO

GUIDE = REPO / "docs" / "api.md"


def examples(language: str) -> list[str]:
    section = GUIDE.read_text().split("## 6.", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def environment(workspace) -> dict[str, str]:
    return {
        **os.environ,
        "MEMORY_CONSOLE_URL": workspace.url,
        "MEMORY_CONSOLE_TOKEN": workspace.token,
        "PYTHONPATH": str(REPO / "clients" / "python" / "src"),
    }


def run(args: list[str], workspace, cwd) -> str:
    done = subprocess.run(
        args,
        cwd=cwd,
        env=environment(workspace),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_python_examples_run_as_printed(workspace, tmp_path):
    sync, asynchronous = examples("python")
    printed = run([sys.executable, "-c", sync], workspace, tmp_path).splitlines()
    assert printed[:2] == ["Apollo launches on 3 March", "403 forbidden"]
    assert any("Apollo launches on 3 March" in line for line in printed[2:])

    root = workspace.memory_root
    assert (
        "Apollo launches on 3 March"
        in (root / "projects/apollo/memory/by-agent/scout/profile.md").read_text()
    )
    [log] = (root / "users/alice/memory/by-agent/scout/log").glob("*.md")
    assert "Prefers morning meetings" in log.read_text()
    assert not (root / "rooms").exists()  # the refused group call wrote nothing

    printed = run([sys.executable, "-c", asynchronous], workspace, tmp_path)
    assert "Prefers morning meetings" in printed


def test_the_typescript_example_runs_as_printed(built, workspace, tmp_path):
    [example] = examples("ts")
    # As the guide says: a tarball of the package (already built), installed into a bot's project.
    run(
        ["npm", "pack", "--ignore-scripts", "--pack-destination", str(tmp_path)], workspace, PACKAGE
    )
    (tmp_path / "package.json").write_text('{"name": "a-bot", "type": "module"}')
    [tarball] = tmp_path.glob("memory-console-client-*.tgz")
    run(["npm", "install", "--no-audit", "--no-fund", tarball.name], workspace, tmp_path)
    (tmp_path / "example.ts").write_text(example)
    config = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "types": ["node"],
            "typeRoots": [str(PACKAGE / "node_modules" / "@types")],
            "lib": ["ES2022", "DOM"],
        },
        "files": ["example.ts"],
    }
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    run([str(PACKAGE / "node_modules" / ".bin" / "tsc"), "-p", "."], workspace, tmp_path)

    printed = run(["node", "example.js"], workspace, tmp_path).splitlines()
    assert printed[:2] == ["Apollo moves to the new office in May", "403 forbidden"]
    assert any("new office" in line for line in printed[2:])
    logs = workspace.memory_root / "projects/apollo/memory/by-agent/scout/log"
    assert any("new office in May" in p.read_text() for p in logs.glob("*.md"))


def test_the_client_to_paste_says_a_room_is_private(workspace):
    section = GUIDE.read_text().split("## 9.", 1)[1]
    names: dict = {}
    exec(re.search(r"```python\n(.*?)```", section, re.S).group(1), names)
    memory = names["Memory"](
        workspace.url, workspace.token, room_id="dm-42", room_kind="direct", person="alice"
    )
    board = memory.room(room_id="board", room_kind="group", person=None, private=True)
    saved = board.remember("Q3 numbers come out on Friday")
    assert saved["scope"] == "room"
    assert saved["file"].startswith("rooms/board/memory/by-agent/scout/"), saved["file"]
    assert "Q3 numbers" in (workspace.memory_root / saved["file"]).read_text()
    # The same bot in a shared group room, without the option: its own memory, as before.
    shared = memory.room(room_id="team", room_kind="group", person=None).remember("Standup 9:30")
    assert shared["scope"] == "bot"
