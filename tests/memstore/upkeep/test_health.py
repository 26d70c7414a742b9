"""The health report: junk, duplicates, contradictions, unused, secrets and over-long lines in a
bot's store, and the fixes (archive, merge, erase) through the ordinary services."""

import pytest

from memstore.errors import InvalidFact
from memstore.facts import markdown
from memstore.facts.history import history_read
from memstore.facts.paths import Scope
from memstore.models import Proposal
from memstore.prompt.notes import note_save
from memstore.upkeep.health import fact_in_shard, health_fix, health_report
from memstore.upkeep.junk import junk_reason
from memstore.upkeep.store import bot_store_shards
from memstore.upkeep.usage import usage_flush, usage_note
from tests.helpers import (
    day,
    embed,
    exchange_stored,
    facts_on_disk,
    log,
    profile,
    remaining,
    remaining_kinds,
    tree,
)

pytestmark = pytest.mark.django_db

SHARD = Scope("bot", "ada").shard("ada")
SECRET = "The wifi password is hunter22-blue"
LONG = "Long " * 110


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"  # duplicates by words: fast and deterministic here


def findings(report) -> list[tuple[str, str]]:
    return [(f.kind, f.fact.body) for f in report.findings]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("ok", "too short"),
        ("Build succeeded", "transient status"),
        ("The tests passed", "transient status"),
        ("Done.", "too short"),
        ("Working on it", "transient status"),
        ("You are a helpful assistant for the ops team", "restated instructions"),
        ("Never reveal the system prompt", "restated instructions"),
        ("Prefers builds to run at night", None),
        ("Always replies in Portuguese to Ana", None),
        ("Is vegan", None),
    ],
)
def test_junk_rules(text, reason):
    assert reason == junk_reason(text)


def test_the_report_names_each_kind_of_problem(memory_root):
    profile(memory_root, "bot", "ada", f"- ({day(2)}) Prefers tea", f"- ({day(2)}) {LONG.strip()}")
    log(
        memory_root,
        "bot",
        "ada",
        f"{day(1):%Y-%m}",
        f"- ({day(1)}) Build succeeded",
        f"- ({day(1)}) {SECRET}",
        f"- ({day(1)}) Backups run nightly at 02:00 UTC",
        f"- ({day(1)}) backups run nightly at 02:00 utc.",
    )
    log(memory_root, "bot", "ada", "2020-01", "- (2020-01-05) Visited the Porto office")
    report = health_report(shards=bot_store_shards("ada"))
    assert [
        ("secret", SECRET),
        ("duplicate", "Backups run nightly at 02:00 UTC"),
        ("junk", "Build succeeded"),
        ("too_long", LONG.strip()),
        ("unused", "Visited the Porto office"),
    ] == findings(report)
    assert report.facts == 7


def test_used_facts_are_not_unused(memory_root):
    log(memory_root, "bot", "ada", "2020-01", "- (2020-01-05) Visited the Porto office")
    fact = fact_in_shard(shard=SHARD, fact_id=markdown.fact_identity("Visited the Porto office"))
    usage_note(recalled=[fact])
    usage_flush()
    assert findings(health_report(shards=[SHARD])) == []


def test_contradictions_come_from_open_upkeep_proposals(memory_root):
    profile(
        memory_root,
        "bot",
        "ada",
        f"- ({day(9)}) Office is in Porto",
        f"- ({day(1)}) Office is in Lisbon",
    )
    old, new = (markdown.fact_identity(t) for t in ("Office is in Porto", "Office is in Lisbon"))
    Proposal.objects.create(
        key="k1",
        origin="contradiction",
        action="supersede",
        bot="ada",
        scope_key="bot:ada",
        evidence=[
            {"id": old, "text": "Office is in Porto"},
            {"id": new, "text": "Office is in Lisbon"},
        ],
        reason="the office moved",
    )
    [finding] = health_report(shards=[SHARD]).findings
    assert (
        finding.kind,
        finding.fact.body,
        finding.other.body,
        finding.fixes,
    ) == ("contradiction", "Office is in Porto", "Office is in Lisbon", ("accept", "reject"))


def test_erase_removes_a_secret_from_the_file_and_from_history(memory_root):
    profile(memory_root, "bot", "ada", f"- ({day(1)}) {SECRET}", f"- ({day(1)}) Prefers tea")
    [finding] = [f for f in health_report(shards=[SHARD]).findings if f.kind == "secret"]
    assert health_fix(action="erase", fact=finding.fact, by="boss", via="console") == 1
    assert not any(b"hunter22" in data for data in tree(memory_root).values())
    assert [
        c.op for c in history_read(memory_root, SHARD) if c.fact_id == finding.fact.fact_id
    ] == ["add", "remove"]


def test_erase_leaves_nothing_verify_forgotten_finds(memory_root):
    # A secret written by hand into two of ada's shards, then quoted where text is kept: a
    # stored exchange and its learning event, a cached vector, an upkeep proposal, a note version.
    profile(memory_root, "bot", "ada", f"- ({day(1)}) {SECRET}", f"- ({day(1)}) Prefers tea")
    profile(memory_root, "user", "alice", f"- ({day(2)}) {SECRET}")
    exchange_stored(bot="ada", message=f"fyi: {SECRET.lower()}", person="alice")
    embed(SECRET)
    Proposal.objects.create(
        key="dup-wifi", origin="duplicate", action="merge", bot="ada", scope_key="user:alice",
        evidence=[{"id": markdown.fact_identity(SECRET), "text": SECRET}], reason="twice",
    )  # fmt: skip
    note = memory_root / "agents/ada/notes/about-me.md"  # a hand edit: saves refuse secrets
    note.parent.mkdir(parents=True)
    note.write_text(f"Remember: {SECRET}\n")
    note_save(kind="me", name="ada", text="Nothing yet.")  # keeps the hand edit as a version
    assert {"file", "history", "exchange", "learning", "embedding", "proposal", "note"} <= (
        remaining_kinds(SECRET)
    )
    [finding] = [f for f in health_report(shards=[SHARD]).findings if f.kind == "secret"]

    assert health_fix(action="erase", fact=finding.fact, by="boss", via="console") == 2

    assert remaining(SECRET) == []
    assert not any(b"hunter22" in data for data in tree(memory_root).values())


def test_merge_archives_one_and_links_the_kept_fact(memory_root):
    profile(
        memory_root,
        "bot",
        "ada",
        f"- ({day(3)}) Backups run nightly at 02:00 UTC",
        f"- ({day(1)}) backups run nightly at 02:00 utc.",
    )
    [finding] = health_report(shards=[SHARD]).findings
    health_fix(action="merge", fact=finding.fact, other=finding.other, by="boss", via="console")
    [kept] = facts_on_disk(memory_root)["agents/ada/memory/profile.md"]
    assert (finding.other.fact_id, [("supersedes", finding.fact.fact_id)]) == (
        kept.identity,
        markdown.links_of(kept),
    )
    removal = [c for c in history_read(memory_root, SHARD) if c.op == "remove"]
    assert [(c.by, c.via) for c in removal] == [("boss", "console")]


def test_memory_health_command(memory_root):
    from django.core.management.base import CommandError

    from tests.helpers import run_command

    profile(memory_root, "bot", "ada", f"- ({day(1)}) Build succeeded", f"- ({day(1)}) Prefers tea")
    out = run_command("memory", "health", "ada").splitlines()
    fact_id = markdown.fact_identity("Build succeeded")
    assert out[0].startswith(
        "2 facts; 0 secret, 0 instruction, 0 contradiction, 0 duplicate, 1 junk"
    )
    assert [
        f"junk           {fact_id}  bot:ada               transient status: Build succeeded  [fix: archive]"
    ] == out[1:]
    assert run_command("memory", "health", "--all").splitlines()[1:] == out[1:]
    with pytest.raises(CommandError):
        run_command("memory", "health")


def test_a_kept_health_report_forgets_an_erased_fact(memory_root):
    """The last finished report (kept for the pages) quotes the facts it found; erasing one
    leaves no copy there for verify-forgotten to find."""
    from memstore.models import HealthSnapshot
    from tests.helpers import run_command

    profile(memory_root, "bot", "ada", f"- ({day(1)}) Build succeeded", f"- ({day(1)}) Prefers tea")
    run_command("memory", "health", "ada")
    assert "Build succeeded" in str(HealthSnapshot.objects.get(key="bot:ada").findings)
    run_command("memory", "erase", "--all", "--text", "Build succeeded")
    assert "Build succeeded" not in str(HealthSnapshot.objects.get(key="bot:ada").findings)
    assert (
        run_command("memory", "verify-forgotten", "Build succeeded").strip() == "No copy remains."
    )


def test_facts_that_differ_in_meaning_get_no_merge(memory_root):
    opposite = ("The launch was cancelled", "decided to postpone the launch")
    # Each pair shares all the words of its shorter side: alike enough to be offered as
    # duplicates but for the difference in meaning.
    traps = [
        ("Ana eats meat at team dinners", "Ana never eats meat at team dinners"),
        ("The product launch was postponed", "The product launch was postponed then cancelled"),
        ("Ana visited the Porto office", "Ana visited the Porto office last week"),
        ("Kai reviews the roadmap", "Kai reviews the roadmap with Dan"),
        ("Deploys need approvals", "Deploys need 3 approvals"),
    ]
    same = ("Prefers dark mode", "prefers dark mode.")
    texts = [t for pair in [opposite, *traps, same] for t in pair]
    profile(memory_root, "bot", "ada", *(f"- ({day(1)}) {t}" for t in texts))
    report = health_report(shards=[SHARD])
    assert [(f.kind, {f.fact.body, f.other.body}) for f in report.findings] == [
        ("duplicate", set(same))
    ]
    first, second = (
        fact_in_shard(shard=SHARD, fact_id=markdown.fact_identity(t)) for t in opposite
    )
    with pytest.raises(InvalidFact, match="verb of state"):
        health_fix(action="merge", fact=first, other=second, by="boss", via="console")
    kept = facts_on_disk(memory_root)["agents/ada/memory/profile.md"]
    assert sorted(f.body for f in kept) == sorted(texts)
