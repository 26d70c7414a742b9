"""Web fixtures: people (a person, another person, staff) and a small workspace written as
Markdown files, the way a bot or a person would leave them on disk."""

import pytest

from memstore.registry.people import editor_add
from tests.helpers import day, write_memory


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    # The real hasher spends ~1 s per password on purpose; tests only need it to work.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def people(db, django_user_model):
    """ann and sam (people), boss (staff)."""
    return {
        "ann": django_user_model.objects.create_user("ann", password="pw-ann-1234"),
        "sam": django_user_model.objects.create_user("sam", password="pw-sam-1234"),
        "boss": django_user_model.objects.create_user(
            "boss", password="pw-boss-1234", is_staff=True
        ),
    }


@pytest.fixture
def workspace(memory_root, people):
    """Bot ava with own memory (one hidden fact, one <script>), user memory about ann and sam,
    project and legacy-room memory; bot ben with a little own memory."""
    month = f"{day(1):%Y-%m}"
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(40)}) Plans offsites and budgets for the Lisbon team",
        f"- ({day(30)}) Escalation phone tree is in the ops wiki <!-- visibility=hidden -->",
    )
    write_memory(
        memory_root,
        f"agents/ava/memory/log/{month}.md",
        f"- ({day(1)}) Booked the rooftop venue for the offsite <!-- type=decision by=ava via=tool -->",
        f"- ({day(1)}) [note] Catering quotes arrive by email",
        f"- ({day(1)}) Release notes mention <script>alert('x')</script> as an example",
    )
    write_memory(
        memory_root, "agents/ava/memory/log/2020-01.md", "- (2020-01-15) Old memories of 2020"
    )
    write_memory(
        memory_root,
        "users/ann/memory/by-agent/ava/profile.md",
        f"- ({day(20)}) Ann wants reports to lead with decisions",
    )
    write_memory(
        memory_root,
        "users/sam/memory/by-agent/ava/profile.md",
        f"- ({day(20)}) Sam is vegetarian",
    )
    write_memory(
        memory_root,
        "projects/launch/memory/by-agent/ava/profile.md",
        f"- ({day(10)}) Launch goal is 500 beta sign-ups",
    )
    write_memory(
        memory_root,
        "rooms/general/memory/by-agent/ava/profile.md",
        f"- ({day(200)}) The general room speaks English",
    )
    write_memory(memory_root, "agents/ben/memory/profile.md", f"- ({day(5)}) Ben summarises papers")
    return memory_root


@pytest.fixture
def ann(client, people, workspace):
    """ann logged in, made an editor of ava and ben by staff (so she may change them)."""
    for bot in ("ava", "ben"):
        editor_add(username="ann", bot=bot)
    client.force_login(people["ann"])
    return client


@pytest.fixture
def boss(client, people):
    client.force_login(people["boss"])
    return client


@pytest.fixture
def report_mode(settings):
    """The learner on in report mode against the scripted model (tests/helpers.FakeModel)."""
    from tests.helpers import FakeModel, learner_on

    model = learner_on(settings, FakeModel(), mode="report", attempts=1)
    yield model
    model.close()


@pytest.fixture
def ava_acts_for_ann(db):
    """ava registered and linked to the registered person ann, as the API asks before a direct
    room's prompt carries ann's memory (the prompt preview agrees with the API)."""
    from memstore.registry.bots import bot_create
    from memstore.registry.people import person_add, person_link

    bot_create(slug="ava", display_name="Ava")
    person_add(name="ann", exist_ok=True)
    person_link(person="ann", bot="ava")
