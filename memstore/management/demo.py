"""The demo workspace: three bots, two people, a project, and real Markdown memory to look at.

`demo_workspace()` is idempotent and fast: accounts, bots and memberships are created when
missing; memory is written (through the ordinary services, so history and index are real) only
when the demo bots have no memory yet, so a second run changes nothing. Dates are relative to
today, so some facts are "new" and the logs span several months.

Demo login: demo / demo-memory (staff). Second person: sam / sam-memory. Both are registered
people (the people registry), linked to the bots that know them.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from memstore.errors import MemstoreError
from memstore.facts.files import write_atomic
from memstore.facts.paths import Scope, Shard, memory_root
from memstore.index import index_sync
from memstore.models import Bot, ProjectMember
from memstore.registry.people import person_add, person_link
from memstore.rules.failures import failure_record
from memstore.store.services import fact_remember

DEMO_PEOPLE = {"demo": ("demo-memory", True), "sam": ("sam-memory", False)}
DEMO_BOTS = {
    "ava": ("Ava, planning assistant", True),
    "ben": ("Ben, research assistant", False),
    "cleo": ("Cleo, operations", True),
}
DEMO_PROJECT = ("launch", ("ava", "ben"))
# Who each registered person is linked to: the bots that may act for them.
DEMO_LINKS = {"demo": ("ava", "ben"), "sam": ("ava",)}

# (shard as "scope_kind:scope_name|bot", tier, days ago, text, metadata)
_FACTS: list[tuple[str, str, int, str, dict]] = [
    (
        "bot:ava|ava",
        "profile",
        120,
        "Works for the Lisbon team; plans offsites, budgets and weekly reports",
        {},
    ),
    (
        "bot:ava|ava",
        "profile",
        90,
        "Weekly reports go out on Friday before noon",
        {"type": "decision"},
    ),
    (
        "bot:ava|ava",
        "profile",
        60,
        "Escalation phone tree lives in the ops wiki, page 'on-call'",
        {"visibility": "hidden"},
    ),
    (
        "bot:ava|ava",
        "log",
        0,
        "Booked the rooftop venue for the March offsite, 40 people",
        {"type": "decision", "by": "ava", "via": "tool"},
    ),
    (
        "bot:ava|ava",
        "log",
        1,
        "Offsite budget approved at 18,000 EUR including travel",
        {"type": "decision"},
    ),
    ("bot:ava|ava", "note", 2, "Catering quotes arrive by email, never in chat", {}),
    (
        "bot:ava|ava",
        "episode",
        3,
        "Planned the Lisbon offsite budget with the team and split it into travel, venue and food",
        {"via": "learner", "src": "room:planning/msg:311"},
    ),
    (
        "bot:ava|ava",
        "log",
        12,
        "The finance team wants receipts in one PDF per trip",
        {"type": "preference"},
    ),
    (
        "bot:ava|ava",
        "log",
        35,
        "Release notes use <b>bold</b> for breaking changes, never <script> tags",
        {},
    ),
    ("bot:ava|ava", "log", 40, "Q3 planning moved from Tuesday to Wednesday mornings", {}),
    ("bot:ava|ava", "note", 70, "The NYC office prefers video calls after 3 pm Lisbon time", {}),
    (
        "bot:ava|ava",
        "log",
        75,
        "Uses SQL dashboards in Metabase for headcount numbers",
        {"type": "context"},
    ),
    (
        "bot:ben|ben",
        "profile",
        100,
        "Summarises papers in five bullet points with a one-line verdict",
        {},
    ),
    ("bot:ben|ben", "log", 4, "Tracks competitor pricing pages every Monday", {"type": "learning"}),
    (
        "bot:ben|ben",
        "log",
        33,
        "Prefers primary sources over blog posts when citing",
        {"type": "preference"},
    ),
    (
        "bot:cleo|cleo",
        "log",
        5,
        "Backups run nightly at 02:00 UTC and are checked every Monday",
        {},
    ),
    (
        "user:demo|ava",
        "profile",
        50,
        "Wants weekly reports to lead with decisions, then blockers",
        {"type": "preference", "by": "ava", "via": "learner", "src": "room:dm-demo/msg:981"},
    ),
    (
        "user:demo|ava",
        "log",
        2,
        "Is travelling to Lisbon on the 14th and needs a hotel near the venue",
        {},
    ),
    (
        "user:demo|ben",
        "log",
        20,
        "Reads research summaries on the phone, so keep them short",
        {"type": "preference"},
    ),
    (
        "user:sam|ava",
        "profile",
        45,
        "Sam is vegetarian; book restaurants with good vegetarian options",
        {"type": "preference"},
    ),
    ("user:sam|ava", "log", 6, "Sam asked for the offsite agenda as a shared document", {}),
    (
        "user:sam|ava",
        "profile",
        15,
        "Always books a window seat and flies economy on short trips",
        {"type": "preference"},
    ),
    (
        "project:launch|ava",
        "profile",
        30,
        "Launch goal: 500 beta sign-ups before the public release",
        {"type": "decision"},
    ),
    (
        "project:launch|ava",
        "log",
        3,
        "Beta invite email goes out in two batches, Tuesday and Thursday",
        {},
    ),
    (
        "project:launch|ben",
        "log",
        8,
        "Three competitors launched similar features this quarter",
        {"type": "learning"},
    ),
    ("project:launch|ben", "log", 65, "The beta feedback form closes two weeks after launch", {}),
    ("room:general|cleo", "log", 150, "The general room posts announcements in English only", {}),
    (
        "room:general|cleo",
        "log",
        160,
        "Office Wi-Fi changes every quarter; ask IT for the new one",
        {},
    ),
]

_HAND_WRITTEN = """# Cleo's profile

Written by hand by the ops team. Cleo reads the facts below; this paragraph is just for people
and stays exactly as it is, whatever the bots save.

- ({d1}) On-call rotation changes every Monday at 09:00 Lisbon time
- ({d2}) Incidents are written up within two working days
- ({bad}) This line has an impossible date, so it is kept as plain text, not a fact
- 2025-01-05 this line has no parentheses around its date, so it is not a fact either

## Notes

Ask Cleo before restarting anything in production.
"""


@dataclass
class DemoReport:
    """What a run did, for the command to print."""

    created: list[str] = field(default_factory=list)
    facts: int = 0
    skipped_memory: bool = False


def demo_workspace(*, today: date | None = None, say: Callable[[str], None] = print) -> DemoReport:
    """Create (or complete) the demo workspace; a second run changes nothing."""
    today = today or timezone.localdate()
    report = DemoReport()
    _accounts(report)
    root = memory_root()
    if (root / Scope("bot", "ava").rel).exists():
        report.skipped_memory = True
        return report
    for key, tier, days, text, meta in _FACTS:
        shard = Shard.parse(key)
        fact_remember(
            shard=shard,
            text=text,
            tier=tier,  # type: ignore[arg-type]
            day=today - timedelta(days=days),
            meta=meta,
            by=shard.bot,
            via="demo",
        )
        report.facts += 1
    hand = root / Scope("bot", "cleo").rel / "profile.md"
    text = _HAND_WRITTEN.format(
        d1=today - timedelta(days=25), d2=today - timedelta(days=24), bad="2025-02-30"
    )
    write_atomic(hand, text, expected=None)  # "by hand", yet with the memory file mode
    report.facts += 2
    index_sync(scopes=[Scope("bot", "cleo")])  # records the hand-written file in history
    _refused_example(root)
    _learning_examples()
    say(f"wrote {report.facts} facts under {root}")
    return report


def _accounts(report: DemoReport) -> None:
    users = get_user_model()
    for name, (password, staff) in DEMO_PEOPLE.items():
        if not users.objects.filter(username=name).exists():
            users.objects.create_user(
                username=name, password=password, is_staff=staff, is_superuser=False
            )
            report.created.append(f"person {name}")
    for slug, (display, in_groups) in DEMO_BOTS.items():
        _, made = Bot.objects.get_or_create(
            slug=slug, defaults={"display_name": display, "in_groups": in_groups}
        )
        if made:
            report.created.append(f"bot {slug}")
    project, members = DEMO_PROJECT
    for slug in members:
        _, made = ProjectMember.objects.get_or_create(
            project=project, bot=Bot.objects.get(slug=slug)
        )
        if made:
            report.created.append(f"{slug} joined project {project}")
    for name, bots in DEMO_LINKS.items():
        person_add(name=name, username=name, exist_ok=True)
        for slug in bots:
            if person_link(person=name, bot=slug):
                report.created.append(f"link {name} - {slug}")


def _refused_example(root) -> None:
    # A refused write, so the home page's "What failed" has something real to show.
    try:
        fact_remember(
            shard=Scope("user", "demo").shard("ben"),
            text="Demo's password is hunter2-hunter2",
            by="ben",
            via="demo",
        )
    except MemstoreError as error:
        failure_record(root=root, bot="ben", op="remember", error=error, by="ben", via="demo")


def _learning_examples() -> None:
    # Exchanges the learner skips without calling a model (small talk, a routine room), so the
    # learning page shows real events.
    from memstore.learning import exchange_submit
    from memstore.rooms.context import context_open

    rooms = [
        ("direct", "dm-demo", "demo", "thanks!", "You're welcome."),
        ("routine", "daily-digest", None, "Compile today's digest.", "Done: 4 items."),
    ]
    for kind, room, person, message, reply in rooms:
        ctx = context_open(bot="ava", room_id=room, room_kind=kind, person=person)
        exchange_submit(
            ctx=ctx, message=message, reply=reply, message_id=f"{room}-1", reply_id=f"{room}-2"
        )
