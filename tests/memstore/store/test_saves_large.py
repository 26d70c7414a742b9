"""Saves in a large shard: a forget or an edit rewrites only the files the index says hold the
fact (unless the index is behind a hand edit), and a write reuses the lines it parsed last
(memstore/facts/parsed.py) only when the file's text is exactly what it parsed."""

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore.facts import markdown, parsed
from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.store import services
from memstore.store.services import fact_edit, fact_forget, fact_remember
from tests.helpers import log, texts_on_disk

pytestmark = pytest.mark.django_db

ADA = Scope("bot", "ada").shard("ada")
MONTHS = [f"2026-{m:02d}" for m in range(1, 7)]


@pytest.fixture
def large(memory_root):
    for month in MONTHS:
        log(
            memory_root,
            "bot",
            "ada",
            month,
            *(f"- ({month}-01) {month} fact {i}" for i in range(300)),
        )
    index_sync(scopes=[ADA.scope])
    return memory_root


@pytest.fixture
def rewritten(monkeypatch) -> list[str]:
    """The files each write opened, in order."""
    opened: list[str] = []
    real = services.file_rewrite

    def spy(rel, edit, **kwargs):
        opened.append(rel)
        return real(rel, edit, **kwargs)

    monkeypatch.setattr(services, "file_rewrite", spy)
    return opened


def test_a_forget_or_an_edit_opens_only_the_file_that_holds_the_fact(large, rewritten):
    saved = fact_remember(shard=ADA, text="Booked the hall", day=date(2026, 3, 9))
    rewritten.clear()
    edited = fact_edit(shard=ADA, fact_id=saved.fact_id, text="Booked the big hall")
    fact_forget(shards=[ADA], fact_id=edited.fact_id)
    assert rewritten == ["agents/ada/memory/log/2026-03.md"] * 2
    assert not any("hall" in t for ts in texts_on_disk(large).values() for t in ts)


def test_a_copy_written_by_hand_since_the_last_sync_is_forgotten_too(large, rewritten):
    saved = fact_remember(shard=ADA, text="Booked the hall", day=date(2026, 3, 9))
    other = large / "agents/ada/memory/log/2026-05.md"
    other.write_text(other.read_text() + "- (2026-05-02) booked  the HALL\n")  # not synced yet
    removed = fact_forget(shards=[ADA], fact_id=saved.fact_id)
    assert sorted(c.file for c in removed) == [
        "agents/ada/memory/log/2026-03.md",
        "agents/ada/memory/log/2026-05.md",
    ]
    assert not any("hall" in t.lower() for ts in texts_on_disk(large).values() for t in ts)


def test_an_edit_finds_a_fact_the_index_has_not_seen(large):
    other = large / "agents/ada/memory/log/2026-02.md"
    other.write_text(other.read_text() + "- (2026-02-03) Prefers aisle seats\n")
    fact_id = markdown.fact_identity("Prefers aisle seats")
    assert fact_edit(shard=ADA, fact_id=fact_id, text="Prefers window seats").file.endswith("02.md")


line = st.one_of(
    st.sampled_from(["- (2026-03-01) Likes tea\n", "prose\n", "- (2026-13-01) bad date\n", "\n"]),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a.md", "b.md"]), st.lists(line, max_size=6))))
def test_remembered_lines_are_always_those_of_the_exact_text(steps):
    for rel, lines in steps:
        text = "".join(lines)
        assert parsed.lines_of(rel, text) == markdown.parse_text(text)
        if lines:  # a write remembers what it wrote; the next read of that text reuses it
            parsed.remember(rel, text, markdown.parse_text(text))
            again = parsed.lines_of(rel, text)
            again.append(markdown.Line(raw="mutated by a caller\n"))
            assert parsed.lines_of(rel, text) == markdown.parse_text(text)
