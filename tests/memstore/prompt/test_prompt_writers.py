"""Whose memory is this: in shared blocks (user and project memory) the prompt marks the lines
another bot's shard holds with `(saved by <bot>)`, never the bot's own, inside the budgets, and
the + / − changes treat a marked line as its fact."""

from datetime import date

from memstore.facts.markdown import fact_identity
from memstore.facts.records import StoredFact
from memstore.prompt.changes import changes_compose
from memstore.prompt.compose import BlockInput, Budget, section_compose


def fact(text: str, bot: str, scope: str = "user:alice", day: str = "2026-11-01") -> StoredFact:
    name = scope.partition(":")[2]
    folder = "users" if scope.startswith("user") else "projects"
    return StoredFact(
        fact_id=fact_identity(text),
        day=date.fromisoformat(day),
        text=text,
        tier="profile",
        scope=scope,
        shard_bot=bot,
        file=f"{folder}/{name}/memory/by-agent/{bot}/profile.md",
    )


def test_other_bots_lines_are_marked_own_lines_and_own_memory_are_not():
    inputs = [
        BlockInput(
            kind="user",
            name="alice",
            facts=[fact("Likes tea", "ada"), fact("Runs on Sundays", "scout")],
        ),
        BlockInput(
            kind="project",
            name="apollo",
            facts=[fact("Launch is in May", "scout", "project:apollo")],
        ),
        BlockInput(
            kind="bot", name="ada", facts=[fact("Drafted the launch plan", "ada", "bot:ada")]
        ),
    ]
    text = section_compose(inputs=inputs, bot="ada").text
    assert "- (2026-11-01) Runs on Sundays (saved by scout)\n" in text
    assert "- (2026-11-01) Launch is in May (saved by scout)\n" in text
    assert "- (2026-11-01) Likes tea\n" in text
    assert "- (2026-11-01) Drafted the launch plan\n" in text
    assert "A line ending (saved by <bot>) was saved by that other bot, not by you" in text
    # scout's own prompt marks ada's line instead.
    theirs = section_compose(inputs=inputs, bot="scout").text
    assert "Likes tea (saved by ada)" in theirs and "Runs on Sundays\n" in theirs


def test_nothing_marked_means_no_note_about_marks():
    inputs = [BlockInput(kind="user", name="alice", facts=[fact("Likes tea", "ada")])]
    assert "saved by" not in section_compose(inputs=inputs, bot="ada").text


def test_the_mark_counts_in_the_character_budget():
    line = "- (2026-11-01) Runs on Sundays"
    budgets = {
        "user": {"profile": Budget(10, len(line) + 1), "recent": Budget(10, 1000)},
        "project": {"profile": Budget(1, 1), "recent": Budget(1, 1)},
        "bot": {"profile": Budget(1, 1), "recent": Budget(1, 1)},
    }
    inputs = [BlockInput(kind="user", name="alice", facts=[fact("Runs on Sundays", "scout")])]
    unmarked = section_compose(inputs=inputs, budgets=budgets, bot="scout")
    assert [f.text for f in unmarked.blocks[0].facts] == ["Runs on Sundays"]
    marked = section_compose(inputs=inputs, budgets=budgets, bot="ada")
    assert marked.blocks[0].facts == []  # " (saved by scout)" no longer fits
    assert "1 more fact on disk" in marked.text


def test_a_marked_line_still_in_memory_is_not_reported_removed():
    before = section_compose(
        inputs=[BlockInput(kind="user", name="alice", facts=[fact("Runs on Sundays", "scout")])],
        bot="ada",
    )
    now = section_compose(inputs=[BlockInput(kind="user", name="alice")], bot="ada")
    kept = changes_compose(
        previous=before.text, current=now, present={fact_identity("Runs on Sundays")}
    )
    assert kept.removed == []
    gone = changes_compose(previous=before.text, current=now, present=set())
    assert gone.removed == ["- (2026-11-01) Runs on Sundays (saved by scout)"]
