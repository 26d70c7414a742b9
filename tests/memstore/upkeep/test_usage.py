"""Usage counts: every front door that serves a bot (the JSON API and MCP both go through
`memstore.calls`) counts what it recalled and put into a prompt; a person's preview does not."""

import pytest

from memstore.calls.prompt import prompt_or_unavailable
from memstore.calls.recall import recall_answer
from memstore.prompt.answer import prompt_answer
from memstore.upkeep.usage import usage_of
from tests.helpers import direct, profile

pytestmark = pytest.mark.django_db

SCOPE = "bot:ada"


def counts() -> dict[str, tuple[int, int]]:
    rows = usage_of(scope_keys=[SCOPE])
    return {fact_id: (row.recalled, row.prompted) for (_, fact_id), row in rows.items()}


def test_a_bots_recall_and_prompt_count_and_a_preview_does_not(memory_root, settings):
    settings.EMBEDDINGS = "none"
    profile(
        memory_root, "bot", "ada", "- (2026-11-01) Prefers dark mode", "- (2026-11-02) Owns a cat"
    )
    prompt_answer(ctx=direct())  # the console preview's builder: a look, not a use
    assert counts() == {}
    recalled = recall_answer(ctx=direct(), query="dark mode").value.items
    assert [f.text for f in recalled] == ["Prefers dark mode"]
    prompt_or_unavailable(open_context=direct)
    dark, cat = recalled[0].fact_id, next(iter(set(counts()) - {recalled[0].fact_id}))
    assert counts() == {dark: (1, 1), cat: (0, 1)}
