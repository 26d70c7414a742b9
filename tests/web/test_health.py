"""The console's health pages (per bot and workspace) with one-click fixes, and the proposal
inbox with accept and reject."""

import re
import secrets

import pytest

from memstore.facts import markdown
from memstore.models import Proposal
from tests.helpers import day, facts_on_disk, write_memory

LOG = "agents/ava/memory/log/{month}.md"


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"


def kinds(html: str) -> list[str]:
    return re.findall(r'<li class="finding kind-(\w+)"', html)


def test_bot_health_lists_findings_with_fixes(ann, workspace):
    write_memory(workspace, "agents/ava/memory/log/2020-02.md", f"- ({day(1)}) Build succeeded")
    html = ann.get("/bots/ava/health/").content.decode()
    assert "junk" in kinds(html)
    assert "transient status" in html
    assert "Sam is vegetarian" not in html  # another person's memory


def test_archive_fix_removes_the_line_and_comes_back(ann, workspace):
    write_memory(
        workspace,
        "agents/ava/memory/log/2020-02.md",
        f"- ({day(1)}) Build succeeded",
        f"- ({day(1)}) Prefers tea",
    )
    fact_id = markdown.fact_identity("Build succeeded")
    answer = ann.post(
        "/health/fix/",
        {"action": "archive", "shard": "bot:ava|ava", "id": fact_id, "next": "/bots/ava/health/"},
    )
    assert (answer.status_code, answer["Location"]) == (302, "/bots/ava/health/")
    assert [f.text for f in facts_on_disk(workspace)["agents/ava/memory/log/2020-02.md"]] == [
        "Prefers tea"
    ]
    assert "junk" not in kinds(ann.get("/bots/ava/health/").content.decode())


def test_a_fix_in_another_persons_memory_is_refused(ann, workspace):
    before = facts_on_disk(workspace)
    fact_id = markdown.fact_identity("Sam is vegetarian")
    answer = ann.post(
        "/health/fix/", {"action": "archive", "shard": "user:sam|ava", "id": fact_id}, follow=True
    )
    assert "another person" in answer.content.decode()
    assert before == facts_on_disk(workspace)


def test_workspace_health_page(boss, workspace):
    write_memory(workspace, "agents/ben/memory/log/2020-02.md", f"- ({day(1)}) Tests passed")
    html = boss.get("/health/").content.decode()
    assert "Workspace health" in html
    assert "Tests passed" in html


def proposal(bot="ava", scope="bot:ava"):
    old = ("Plans offsites and budgets for the Lisbon team", day(40))
    return Proposal.objects.create(
        key="p1",
        origin="synthesis",
        action="retire",
        bot=bot,
        scope_key=scope,
        evidence=[
            {"id": markdown.fact_identity(old[0]), "text": old[0], "bot": "ava", "scope": scope}
        ],
        reason="The Lisbon team was folded into Porto",
    )


def test_proposals_inbox_accept_applies_and_reject_changes_nothing(ann, workspace):
    p = proposal()
    page = ann.get("/bots/ava/proposals/").content.decode()
    assert "The Lisbon team was folded into Porto" in page
    before = facts_on_disk(workspace)
    ann.post("/bots/ava/proposals/decide/", {"proposal": p.pk, "decision": "reject"})
    assert before == facts_on_disk(workspace)
    assert Proposal.objects.get(pk=p.pk).status == Proposal.REJECTED
    Proposal.objects.filter(pk=p.pk).update(status=Proposal.PROPOSED)
    ann.post("/bots/ava/proposals/decide/", {"proposal": p.pk, "decision": "accept"})
    assert Proposal.objects.get(pk=p.pk).status == Proposal.APPLIED
    texts = [f.text for f in facts_on_disk(workspace)["agents/ava/memory/profile.md"]]
    assert "Plans offsites and budgets for the Lisbon team" not in texts
    assert "No proposed proposals" in ann.get("/bots/ava/proposals/").content.decode()


def queued_health() -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT args->>'key' FROM procrastinate_jobs "
            "WHERE task_name = 'memstore.upkeep.health' AND status = 'todo' ORDER BY id"
        )
        return [row[0] for row in cursor.fetchall()]


@pytest.fixture
def large(settings):
    """Every store counts as large: its report is made by the worker, not by the page."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE procrastinate_jobs CASCADE")
    settings.HEALTH_INLINE_FACTS = 0


def test_a_large_store_shows_the_last_report_while_the_worker_makes_a_new_one(
    ann, workspace, large
):
    from memstore.index import index_sync
    from memstore.upkeep.health_snapshots import health_job
    from memstore.upkeep.store import bot_store_shards

    write_memory(workspace, LOG.format(month="2020-02"), f"- ({day(1)}) Build succeeded")
    index_sync(scopes=[s.scope for s in bot_store_shards("ava")])
    first = ann.get("/bots/ava/health/").content.decode()
    assert "first report of this memory is being prepared" in first
    assert kinds(first) == []
    assert queued_health() == ["bot:ava"]
    ann.get("/bots/ava/health/")
    assert queued_health() == ["bot:ava"]  # asked once, not once a visit
    health_job(key="bot:ava")  # what the worker runs
    done = ann.get("/bots/ava/health/").content.decode()
    assert "junk" in kinds(done)
    assert "being prepared" not in done

    write_memory(
        workspace,
        LOG.format(month="2020-02"),
        f"- ({day(1)}) Build succeeded",
        f"- ({day(1)}) Tests passed",
    )
    index_sync(scopes=[s.scope for s in bot_store_shards("ava")])
    changed = ann.get("/bots/ava/health/").content.decode()
    assert "The memory changed since this report" in changed
    assert "Build succeeded" in changed and "Tests passed" not in changed  # the last report
    health_job(key="bot:ava")
    assert "Tests passed" in ann.get("/bots/ava/health/").content.decode()


def test_a_fix_leaves_the_kept_report_at_once(ann, workspace, large):
    from memstore.upkeep.health_snapshots import health_job

    write_memory(workspace, LOG.format(month="2020-02"), f"- ({day(1)}) Build succeeded")
    ann.get("/bots/ava/health/")
    health_job(key="bot:ava")
    fact_id = markdown.fact_identity("Build succeeded")
    ann.post("/health/fix/", {"action": "archive", "shard": "bot:ava|ava", "id": fact_id})
    assert "Build succeeded" not in ann.get("/bots/ava/health/").content.decode()


def test_findings_come_a_kind_and_a_page_at_a_time(ann, workspace, large):
    from memstore.upkeep.health_snapshots import health_job

    lines = [f"- ({day(1)}) Build succeeded{'!' * n}" for n in range(60)]
    write_memory(workspace, LOG.format(month="2020-02"), *lines)
    ann.get("/bots/ava/health/")
    health_job(key="bot:ava")
    page = ann.get("/bots/ava/health/?kind=junk").content.decode()
    assert (kinds(page), "Showing 1–50 of 60" in page) == (["junk"] * 50, True)
    assert 'href="/bots/ava/health/?kind=junk&amp;offset=50"' in page
    rest = ann.get("/bots/ava/health/?kind=junk&offset=50").content.decode()
    assert kinds(rest) == ["junk"] * 10
    assert ann.post("/bots/ava/health/").status_code == 302  # check again: queued
    assert queued_health() == ["bot:ava"]


def test_erase_everywhere_asks_first_and_does_nothing_until_confirmed(boss, memory_root):
    """Health's Erase everywhere is irreversible: the first POST only asks (Cancel focused,
    back to the page it came from); the file changes on the confirmed one."""
    from tests.helpers import profile

    key = secrets.token_urlsafe(12)  # generated: nothing secret-shaped is committed
    profile(memory_root, "bot", "ava", f"- ({day(1)}) The office wifi password is {key}", bot="ava")
    fact_id = markdown.fact_identity(f"The office wifi password is {key}")
    form = {
        "action": "erase",
        "shard": "bot:ava|ava",
        "id": fact_id,
        "next": "/health/?kind=secret",
    }
    asked = boss.post("/health/fix/", form)
    html = asked.content.decode()
    assert asked.status_code == 200 and "This cannot be undone." in html
    assert '<a class="button" href="/health/?kind=secret" autofocus>Cancel</a>' in html
    assert key in (memory_root / "agents/ava/memory/profile.md").read_text()
    done = boss.post("/health/fix/", {**form, "confirmed": "1"})
    assert done.status_code == 302
    assert key not in (memory_root / "agents/ava/memory/profile.md").read_text()
