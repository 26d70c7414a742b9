"""`bench rows_audit`'s row 47, the seed's context shape (003: "20 entries per category, 200
characters each, personal by recency, workspace by weight", PROMPT_SHAPE=seed): alice's user
memory gets 25 LoCoMo lines imported with their own dates (`manage.py import mem0`, the door
that keeps a date) and 5 saved today through the API, each three consecutive LoCoMo lines joined
(LoCoMo's longest line is 168 characters, under the 200 an entry shows); an app saves 25 LoCoMo
lines as workspace records with weights 1–5. The prompt in alice's direct room must show at
most 20 entries a block, each at most 200 characters of the fact, the personal ones newest date
first and the 20 newest, the workspace's weightiest first.

Does not: start the server (bench/rows_audit.py).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

from bench._attack_doors import BOT, DIRECT, Api
from bench._rows_checks import NOBODY, Verdict
from bench._workspace import REPO

ENTRY = re.compile(r"^- (?:\((\d{4}-\d\d-\d\d)\) )?(.*)$")


def _blocks(text: str) -> dict[str, list[tuple[str, str]]]:
    """The prompt section's blocks: heading -> its entries as (date, text)."""
    blocks: dict[str, list[tuple[str, str]]] = {}
    heading = ""
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("# ").strip()
            blocks[heading] = []
        elif (match := ENTRY.match(line)) and heading:
            blocks[heading].append((match.group(1) or "", match.group(2)))
    return blocks


def _holding(blocks: dict, texts) -> tuple[str, list[tuple[str, str]]]:
    """The block holding most of `texts` (matched on their first 30 characters)."""

    def hits(item) -> int:
        joined = " ".join(t for _, t in item[1])
        return sum(t[:30] in joined for t in texts)

    return max(blocks.items(), key=hits, default=("", []))


def _personal(api: Api, lines: list[dict], folder: Path, env: dict) -> dict[str, str]:
    """Alice's 30 personal facts (text -> date); returns them."""
    dated = {f["text"]: f["date"] for f in lines[:25]}
    memories = [
        {"id": f"m-{n}", "memory": text, "user_id": "alice", "created_at": day}
        for n, (text, day) in enumerate(dated.items())
    ]
    export = folder / "mem0.json"
    export.write_text(json.dumps({"memories": memories}))
    subprocess.run(
        [sys.executable, "manage.py", "import", "mem0", str(export), "--bot", BOT],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    for n in range(25, 40, 3):
        text = " ".join(f["text"] for f in lines[n : n + 3])
        status, body = api.call("POST", "/api/v1/facts", DIRECT, {"text": text, "scope": "user"})
        if status not in (200, 201):
            raise RuntimeError(f"saving a joined line: {status} {body}")
        dated[text] = body["date"]
    return dated


def row_shape(api: Api, app: Api, lines: list[dict], folder: Path, env: dict) -> Verdict:
    """47: see the module's docstring."""
    from django.conf import settings

    if getattr(settings, "PROMPT_SHAPE", None) is None:
        return Verdict("47 per-category context", False, "no PROMPT_SHAPE setting", absent=True)
    entries, chars = int(settings.PROMPT_SHAPE_ENTRIES), int(settings.PROMPT_SHAPE_ENTRY_CHARS)
    dated = _personal(api, lines, folder, env)
    weights = {f["text"]: 1 + n % 5 for n, f in enumerate(lines[40:65])}
    for text, weight in weights.items():
        body = {"text": text, "scope": "server", "weight": weight}
        app.call("POST", "/api/v1/facts", NOBODY, body)
    status, body = api.call("GET", "/api/v1/prompt", DIRECT)
    blocks = _blocks(body.get("text", ""))
    name, personal = _holding(blocks, dated)
    work_name, work = _holding(blocks, weights)
    days = [d for d, _ in personal]
    newest = sorted(dated.values(), reverse=True)[:entries]
    order = [next((w for t, w in weights.items() if e.startswith(t[:30])), 0) for _, e in work]
    longest = max((len(e.rstrip("…")) for _, e in personal), default=0)
    cut = sum(e.endswith("…") for _, e in personal)
    ok = status == 200 and 0 < len(personal) <= entries and 0 < len(work) <= entries
    ok = ok and longest <= chars and cut > 0 and order == sorted(order, reverse=True)
    ok = ok and days == sorted(days, reverse=True) and sorted(days, reverse=True) == newest
    evidence = (
        f"PROMPT_SHAPE={settings.PROMPT_SHAPE} ({entries} x {chars}), GET /prompt {status}: "
        f"'{name[:40]}' {len(personal)} of {len(dated)} entries, dates {days[0] if days else '-'}"
        f" … {days[-1] if days else '-'} (newest first: {'yes' if days == sorted(days, reverse=True) else 'no'}; "
        f"the {entries} newest: {'yes' if sorted(days, reverse=True) == newest else 'no'}), longest {longest} chars, "
        f"{cut} cut with '…'; '{work_name[:40]}' {len(work)} of 25 records, weights in order "
        f"{''.join(map(str, order))}"
    )
    return Verdict("47 per-category context", ok, evidence)
