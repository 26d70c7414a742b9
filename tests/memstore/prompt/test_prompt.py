import os
from datetime import date

import pytest

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact
from memstore.models import Bot
from memstore.prompt.changes import changes_compose
from memstore.prompt.compose import BlockInput, Budget, section_compose, slice_fill
from memstore.prompt.section import prompt_build, prompt_changes
from memstore.rooms.access import Context, Room
from memstore.store.services import fact_forget, fact_remember
from tests.helpers import log, profile


def fact(text: str, day: str = "2026-11-01", **kw) -> StoredFact:
    """A stored fact as the selector would load it (rank as the index computes it)."""
    when = date.fromisoformat(day)
    defaults = dict(
        fact_id=fact_identity(text),
        day=when,
        text=text,
        tier="log",
        scope="bot:ada",
        shard_bot="ada",
        file="agents/ada/memory/log/2026-11.md",
        rank=(when - date(1970, 1, 1)).days / 30,
    )
    return StoredFact(**(defaults | kw))


def _as_dict(value: StoredFact) -> dict:
    return {name: getattr(value, name) for name in StoredFact.__slots__}


def _with(value: StoredFact, **changes) -> StoredFact:
    return StoredFact(**(_as_dict(value) | changes))


def direct(**kw) -> Context:
    return Context(bot="ada", room=Room("dm-1", "direct"), person="alice", **kw)


# --- pure budgeting ----------------------------------------------------------------------


def test_count_cap_stops_and_counts_what_it_left():
    facts = [fact(f"fact {i}") for i in range(5)]
    part = slice_fill("recent", facts, Budget(facts=3, chars=10_000))
    assert (part.facts, part.past_chars, part.past_count) == (facts[:3], 0, 2)


def test_char_budget_stops_at_the_first_fact_that_would_overflow():
    long, short = fact("x" * 80), fact("short")
    line = len("- (2026-11-01) ") + 1  # what a fact costs beyond its text
    part = slice_fill("recent", [short, long, short], Budget(facts=10, chars=2 * (line + 5)))
    # The long fact does not fit; the short one after it would, but the block stops cleanly.
    assert (part.facts, part.past_chars, part.past_count, part.left_out) == ([short], 2, 0, 2)


def test_block_merges_shards_newest_wins_and_never_shows_hidden():
    old = fact("Lives in Austin", "2026-01-05", shard_bot="bob", scope="user:alice")
    new = fact("Lives in Austin", "2026-03-09", shard_bot="ada", scope="user:alice")
    hidden = fact("Door code 1234", meta={"visibility": "hidden"}, visibility="hidden")
    searchable = fact("Old invoice numbers", visibility="searchable")
    section = section_compose(inputs=[BlockInput("user", "alice", [old, new, hidden, searchable])])
    block = section.blocks[0]
    assert block.facts == [new]
    assert (block.recall_only, block.left_out) == (1, 1)
    assert "Door code" not in section.text
    assert "- (2026-03-09) Lives in Austin\n" in section.text
    assert "2026-01-05" not in section.text


def test_section_text_whole():
    inputs = [
        BlockInput("user", "alice", [fact("Prefers tea", tier="profile")]),
        BlockInput("project", "acme", []),
        BlockInput(
            "bot",
            "ada",
            [fact("Writes in British English", tier="profile"), fact("Shipped v2", "2026-11-20")],
        ),
    ]
    budgets = {
        "user": {"profile": Budget(5, 1000), "recent": Budget(5, 1000)},
        "project": {"profile": Budget(5, 1000), "recent": Budget(5, 1000)},
        "bot": {"profile": Budget(5, 1000), "recent": Budget(0, 1000)},
    }
    text = section_compose(inputs=inputs, budgets=budgets, team_wide=True).text
    assert text.split("\n", 2)[0] == "## Memory"
    assert "prefer your own memory, then project memory, then what you know about the user" in text
    assert text.split("\n\n", 1)[1] == (
        "### About alice (user memory, shared by the bots alice talks with directly)\n"
        "Profile:\n"
        "- (2026-11-01) Prefers tea\n"
        "Nothing more on disk for this block.\n"
        "\n"
        "### Project acme (shared by the bots working on it)\n"
        "Nothing saved here yet.\n"
        "Nothing more on disk for this block.\n"
        "\n"
        "### Your own memory (team-wide)\n"
        "Your own memory is team-wide: it goes with you into every group chat you are in. "
        "Mention every team-wide save or forget to the people you are talking with.\n"
        "Profile:\n"
        "- (2026-11-01) Writes in British English\n"
        "1 more fact on disk, not shown here: search them with recall.\n"
    )


def test_recent_facts_are_the_highest_ranked():
    note = fact("[note] Likes rooftop venues", "2026-11-10", tier="note")
    # A note weighs 0.5: it ranks like a fact 30 days older than its date.
    note = _with(note, rank=note.rank - 1)
    older = fact("Booked the venue", "2026-10-25")
    newest = fact("Sent the invites", "2026-11-12")
    section = section_compose(
        inputs=[BlockInput("bot", "ada", [note, older, newest])],
        budgets={"bot": {"profile": Budget(5, 1000), "recent": Budget(2, 1000)}},
    )
    assert section.blocks[0].recent.facts == [newest, older]
    assert section.blocks[0].recent.past_count == 1


def test_changes_tell_budget_pushed_facts_from_forgotten_ones():
    kept, gone, pushed = fact("Prefers tea"), fact("Lives in Austin"), fact("Old detail")
    new = fact("Lives in Lisbon", "2026-11-20")
    before = section_compose(inputs=[BlockInput("bot", "ada", [kept, gone, pushed])])
    after = section_compose(
        inputs=[BlockInput("bot", "ada", [kept, new, pushed])],
        budgets={"bot": {"profile": Budget(5, 1000), "recent": Budget(2, 1000)}},
    )
    changes = changes_compose(
        previous=before.text, current=after, present={kept.fact_id, new.fact_id, pushed.fact_id}
    )
    assert changes.added == ["- (2026-11-20) Lives in Lisbon"]
    assert changes.removed == ["- (2026-11-01) Lives in Austin"]
    assert changes.left == ["- (2026-11-01) Old detail"]
    assert changes.text == (
        "Memory changes since your memory section was built:\n"
        "+ (2026-11-20) Lives in Lisbon\n"
        "\u2212 (2026-11-01) Lives in Austin\n"
        "Left the section for lack of room, still in memory (recall finds them):\n"
        "~ (2026-11-01) Old detail\n"
    )
    same = changes_compose(previous=after.text, current=after, present=set())
    assert (same.added, same.removed, same.text) == ([], [], "")


# --- from files ------------------------------------------------------------------------


@pytest.fixture
def workspace(memory_root):
    profile(memory_root, "user", "alice", "- (2026-10-01) Prefers tea")
    log(memory_root, "user", "alice", "2026-11", "- (2026-11-02) Moving to Lisbon in March")
    profile(memory_root, "project", "acme", "- (2026-09-01) Ships every Friday")
    profile(memory_root, "bot", "ada", "- (2026-08-01) Writes in British English")
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        "- (2026-11-03) Reviewed the Q3 report",
        "- (2026-11-04) Draft budget <!-- visibility=hidden -->",
    )
    return memory_root


@pytest.mark.django_db
def test_blocks_in_order_user_projects_own(workspace):
    section = prompt_build(ctx=direct(projects=("acme",), joined=frozenset({"acme"})))
    assert [b.scope for b in section.blocks] == ["user:alice", "project:acme", "bot:ada"]
    text = section.text
    assert text.index("Prefers tea") < text.index("Ships every Friday") < text.index("Q3 report")
    assert "Draft budget" not in text
    assert [f.text for f in section.blocks[0].facts] == ["Prefers tea", "Moving to Lisbon in March"]


@pytest.mark.django_db
def test_group_rooms_never_get_user_memory(workspace):
    ctx = Context(bot="ada", room=Room("team", "group"))
    section = prompt_build(ctx=ctx)
    assert [b.scope for b in section.blocks] == ["bot:ada"]
    assert "Prefers tea" not in section.text and "Lisbon" not in section.text


@pytest.mark.django_db
def test_same_files_same_section_byte_for_byte(workspace):
    first = prompt_build(ctx=direct()).text
    path = workspace / "agents/ada/memory/log/2026-11.md"
    path.write_bytes(path.read_bytes())  # a new mtime, the same content: reparsed, same facts
    os.utime(path, ns=(1, 1))
    assert prompt_build(ctx=direct()).text == first


@pytest.mark.django_db
def test_team_wide_wording_when_the_bot_is_in_groups(workspace):
    assert "team-wide" not in prompt_build(ctx=direct()).text
    Bot.objects.create(slug="ada", in_groups=True)
    text = prompt_build(ctx=direct()).text
    assert "### Your own memory (team-wide)" in text
    assert "Mention every team-wide save or forget" in text


@pytest.mark.django_db
def test_budgets_from_settings_and_the_left_out_line(memory_root, settings):
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        *[f"- (2026-11-{day:02d}) Finished task number {day}" for day in range(1, 8)],
    )
    settings.PROMPT_BUDGETS = {"bot": {"recent": (3, 4000)}}
    section = prompt_build(ctx=direct())
    block = section.blocks[-1]
    assert [f.text for f in block.recent.facts] == [
        "Finished task number 7",
        "Finished task number 6",
        "Finished task number 5",
    ]
    assert (block.recent.past_count, block.left_out) == (4, 4)
    assert "4 more facts on disk, not shown here: search them with recall.\n" in section.text


@pytest.mark.django_db
def test_prompt_changes_after_saves_and_forgets(workspace):
    ctx = direct()
    earlier = prompt_build(ctx=ctx).text
    shard = Scope("bot", "ada").shard("ada")
    fact_remember(shard=shard, text="Prefers short answers", day=date(2026, 11, 20))
    fact_forget(shards=[shard], text="Reviewed the Q3 report")
    changes = prompt_changes(ctx=ctx, previous=earlier)
    assert changes.added == ["- (2026-11-20) Prefers short answers"]
    assert changes.removed == ["- (2026-11-03) Reviewed the Q3 report"]
    assert prompt_changes(ctx=ctx, previous=prompt_build(ctx=ctx).text).text == ""


@pytest.mark.django_db
def test_shards_merge_and_counts_from_the_files(memory_root):
    log(
        memory_root,
        "user",
        "alice",
        "2026-10",
        "- (2026-10-01) Lives in Austin",
        "- (2026-10-02) Old invoice numbers <!-- visibility=searchable -->",
        bot="bob",
    )
    log(
        memory_root,
        "user",
        "alice",
        "2026-11",
        "- (2026-11-05) Lives in Austin",
        "- (2026-11-06) Alarm code 9911 <!-- visibility=hidden -->",
    )
    block = prompt_build(ctx=direct()).blocks[0]
    assert [(f.day, f.shard_bot) for f in block.facts] == [(date(2026, 11, 5), "ada")]
    assert (block.recall_only, block.left_out) == (1, 1)  # the hidden fact is not counted


@pytest.mark.django_db
def test_a_fact_hidden_later_is_reported_removed(workspace):
    earlier = prompt_build(ctx=direct()).text
    path = workspace / "agents/ada/memory/log/2026-11.md"
    path.write_text(
        path.read_text().replace(
            "Reviewed the Q3 report", "Reviewed the Q3 report <!-- visibility=hidden -->"
        )
    )
    changes = prompt_changes(ctx=direct(), previous=earlier)
    assert (changes.added, changes.removed) == ([], ["- (2026-11-03) Reviewed the Q3 report"])
