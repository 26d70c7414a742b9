"""`bench rows_audit`'s checks, one function per design row (44–48 of issue 38): each drives the
live server through its doors with LoCoMo lines and returns a `Verdict` (PASS or FAIL and the
evidence: counts, the line as stored on disk, what the console or the prompt shows).

Does not: start the server, the worker or the model (bench/rows_audit.py), or print the table.
"""

import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

from bench._attack_doors import BOT, DIRECT, GROUP, Api, Console
from bench._workspace import REPO

CONTRACT = "Confidentiality agreement signed with Contoso"
HEALTH = "Melanie is recovering from an operation on her knee"
LESSON = (  # three paraphrases of one lesson, and one said three times verbatim
    "Always confirm the time zone before booking a meeting",
    "Before booking a meeting, confirm the time zone first",
    "Confirm the time zone always before a meeting is booked",
)
NOBODY = {"room_id": "ops", "room_kind": "group"}  # a group room where no person speaks
VERBATIM = "Check the calendar for public holidays before proposing a date"


class Person(Console):
    """A logged-in console session with plain GET and POST, and the add-a-fact form."""

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=60) as page:
            return page.read().decode()

    def post(self, path: str, form: dict) -> str:
        token = {"csrfmiddlewaretoken": self._token(f"/bots/{BOT}/")}
        return self._post(path, {**form, **token})[1]

    def add_text(self, text: str) -> str:
        path = f"/bots/{BOT}/facts/add/"
        form = {"text": text, "scope": f"bot:{BOT}", "tier": "log"}
        return self._post(path, {**form, "csrfmiddlewaretoken": self._token(path)})[1]


@dataclass
class Verdict:
    row: str
    ok: bool
    evidence: str
    absent: bool = False  # the row's feature is not in this checkout: not checked

    @property
    def word(self) -> str:
        return "NOT ON MAIN YET" if self.absent else "PASS" if self.ok else "FAIL"


def _line_of(root: Path, text: str) -> str:
    """The stored line holding `text` in a live memory file of scout's (history excluded; row
    44's bot `notes` holds every LoCoMo line), or ''."""
    for path in sorted(root.rglob("*.md")):
        if "history" in path.parts or BOT not in path.parts:
            continue
        for line in path.read_text(errors="replace").splitlines():
            if text in line:
                return line.strip()
    return ""


def row_sensitive(api: Api, lines: list[dict]) -> Verdict:
    """44: LoCoMo lines saved to a bot's team-wide memory (bot `notes`, so the other rows'
    lines are not on disk before they save them); how many are held, and two probes."""
    held, saved, other = [], 0, []
    for fact in lines:
        status, body = api.call("POST", "/api/v1/facts", NOBODY, {"text": fact["text"]})
        if status in (200, 201):
            saved += 1
        elif body.get("code") == "sensitive_keyword":
            held.append(fact["text"])
        else:
            other.append(f"{status} {body.get('code')}")
    contract, _ = api.call("POST", "/api/v1/facts", NOBODY, {"text": CONTRACT})
    health, health_body = api.call("POST", "/api/v1/facts", NOBODY, {"text": HEALTH})
    share = 100 * len(held) / max(len(lines), 1)
    ok = contract in (200, 201) and health_body.get("code") == "sensitive_keyword"
    ok = ok and share < 5 and not other
    shown = "; ".join(f"'{t}'" for t in held[:3])
    evidence = (
        f"LoCoMo {len(lines)} lines to team memory: {saved} saved, {len(held)} held "
        f"({share:.1f} %){': ' + shown if shown else ''}; other answers {other[:3] or 'none'}; "
        f"'{CONTRACT}' -> {contract}; '{HEALTH}' -> {health} {health_body.get('code', '')}"
    )
    return Verdict("44 sensitive keywords", ok, evidence)


def _learning(api: Api, text: str, room: dict) -> int:
    body = {"text": text, "type": "learning"}
    return api.call("POST", "/api/v1/facts", room, body)[0]


def row_lessons(apis: dict[str, Api], env: dict, drain) -> Verdict:
    """45: paraphrases in two orders (two bots); a lesson saved three times verbatim through the
    API (a third); one saved once and then heard twice more by the learner (a fourth); then
    `manage.py upkeep --lessons --all`: a proposal per bot is what a person would review."""
    from memstore.models import Proposal

    orders = {"lessons-a": (0, 1, 2), "lessons-b": (2, 0, 1)}
    for bot, order in orders.items():
        for i in order:
            _learning(apis[bot], LESSON[i], NOBODY)
    statuses = [_learning(apis["lessons-c"], VERBATIM, NOBODY) for _ in range(3)]
    _learning(apis["lessons-d"], VERBATIM, NOBODY)
    for n in range(2):
        said = {"message": VERBATIM + ".", "reply": "Good point.", "message_id": f"ls-{n}",
                "reply_id": f"lr-{n}"}  # fmt: skip
        apis["lessons-d"].call("POST", "/api/v1/exchanges", NOBODY, said)
    drain()
    done = subprocess.run(
        [sys.executable, "manage.py", "upkeep", "--lessons", "--all"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = [s.split(" (proposal")[0] for s in done.stdout.splitlines() if s.startswith("less")]
    found = {b: Proposal.objects.filter(origin="lessons", bot=b).count() for b in apis}
    ok = all(found[b] for b in apis) and done.returncode == 0
    evidence = (
        f"proposals by bot {found} (a: paraphrases 1-2-3, b: 3-1-2, c: one lesson saved 3 times "
        f"verbatim through the API, answered {statuses}, d: saved once, heard twice by the "
        "learner); upkeep said: " + (" / ".join(said) or done.stderr.strip()[-200:])
    )
    return Verdict("45 lessons for agents", ok, evidence)


def row_lookback(api: Api, lines: list[dict], root: Path, console: Person, drain) -> Verdict:
    """46: two exchanges reported while no worker runs; one is then made 15 days old (as a
    worker stopped for two weeks would leave it); the worker drains both."""
    from django.utils import timezone

    from memstore.models import Exchange

    old_text, new_text = lines[0]["text"], lines[1]["text"]
    for n, text in enumerate((old_text, new_text)):
        body = {"message": text, "reply": "Thanks.", "message_id": f"lb-{n}", "reply_id": f"r{n}"}
        api.call("POST", "/api/v1/exchanges", DIRECT, body)
    old = Exchange.objects.get(bot=BOT, message_id="lb-0")
    Exchange.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=15))
    drain()
    old.refresh_from_db()
    new = Exchange.objects.get(bot=BOT, message_id="lb-1")
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", console.get(f"/bots/{BOT}/learning/")))
    said = re.search(r"[^.—]*still queued[^)]*\)", page)
    shown = said is not None
    old_line, new_line = _line_of(root, old_text[:60]), _line_of(root, new_text[:60])
    ok = old.status != Exchange.DONE and not old_line and bool(new_line) and shown
    evidence = (
        f"LoCoMo line '{old_text}' reported, left queued 15 days: {old.status} "
        f"({old.reason or '-'}), on disk: {'yes' if old_line else 'no'}; a fresh one: "
        f"{new.status}, stored `{new_line.split(' <!--')[0]}` ({_meta_part(new_line)}); the "
        f"console's learning page says: {said.group(0).strip() if said else 'nothing'}"
    )
    return Verdict("46 background extraction", ok, evidence)


class _Fields(HTMLParser):
    """The named fields of the first form on a page, with their current values."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self._open: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs) -> None:
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.fields[name] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._open, self.fields[name] = name, ""
        elif tag == "select" and name:
            self._select = name
        elif (
            tag == "option"
            and self._select
            and ("selected" in a or self._select not in self.fields)
        ):
            self.fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag) -> None:
        if tag == "textarea":
            self._open = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data) -> None:
        if self._open:
            self.fields[self._open] += data


_AUTHOR = re.compile(r"\bby\s+([\w.-]+)(?:\s+via\s+([\w.-]+))?")


def row_provenance(api: Api, lines: list[dict], root: Path, console: Person) -> Verdict:
    """48: one LoCoMo line through each door (API, MCP, the console's add form), one edited in
    the console; the line on disk for each, and the author the console shows before and after
    a reload."""
    texts = [f["text"] for f in lines[:5]]
    api.call("POST", "/api/v1/facts", DIRECT, {"text": texts[0], "scope": "user"})
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "remember", "arguments": {"text": texts[1], **DIRECT}}}  # fmt: skip
    api.call("POST", "/mcp", {"room_id": "", "room_kind": ""}, message)
    console.add_text(texts[2])
    asked = {"message": f"Remember that {texts[4]}", "reply": "Noted.", "message_id": "pv-1",
             "reply_id": "pv-r1"}  # fmt: skip
    api.call("POST", "/api/v1/exchanges", DIRECT, asked)
    status, body = api.call("POST", "/api/v1/facts", GROUP, {"text": texts[3]})
    edited = texts[3] + " (checked)"
    form = _Fields()
    form.feed(console.get(f"/bots/{BOT}/facts/edit/?file={body['file']}&id={body['id']}"))
    after_edit = console.post(f"/bots/{BOT}/facts/edit/", form.fields | {"text": edited})
    reload = console.get(f"/bots/{BOT}/")
    stored = {
        d: _line_of(root, t[:60]) for d, t in zip(("api", "mcp", "console"), texts[:3], strict=True)
    }
    stored["console edit"] = _line_of(root, edited)
    stored["remember that"] = _line_of(root, texts[4][:60])
    missing = [d for d, line in stored.items() if "by=" not in line or "via=" not in line]
    person = "for=alice" in stored["remember that"]
    before = _author_near(after_edit, edited)
    again = _author_near(reload, edited)
    ok = not missing and person and before == again and before != ""
    shown = "; ".join(f"{d}: `{_meta_part(line)}`" for d, line in stored.items())
    evidence = (
        f"on disk {shown}; lines without by=/via=: {missing or 'none'}; for=alice on the line "
        f"alice asked to remember: {'yes' if person else 'no'}; console after the edit '{before}', after a "
        f"reload '{again}'"
    )
    return Verdict("48 provenance on the line", ok, evidence)


def _meta_part(line: str) -> str:
    """The line's metadata (its key=value words), or the line's end when it has none."""
    pairs = re.findall(r"\b[a-z_]+=\S+", line)
    return " ".join(pairs) if pairs else "no metadata: …" + line[-40:]


def _author_near(html: str, text: str) -> str:
    """The 'by X via Y' the console shows in the row holding `text`."""
    at = html.find(text)
    if at < 0:
        return ""
    match = _AUTHOR.search(re.sub(r"<[^>]+>", " ", html[at : at + 4000]))
    return match.group(0) if match else ""
