"""GET /prompt in the `seed` shape (PROMPT_SHAPE=seed): the section's text holds each block as
one category of capped, cut entries, and its blocks carry each fact whole."""

import pytest

from tests.helpers import write_memory

pytestmark = pytest.mark.django_db


def test_the_prompt_text_is_seed_shaped_and_its_blocks_carry_whole_facts(bot_a, settings):
    settings.PROMPT_SHAPE, settings.PROMPT_SHAPE_ENTRIES = "seed", 2
    long = "The release checklist lives in the ops wiki under runbooks " * 5
    write_memory(
        settings.MEMORY_ROOT,
        "agents/a/memory/log/2026-11.md",
        "- (2026-11-01) Oldest",
        f"- (2026-11-02) {long.strip()}",
        "- (2026-11-03) Newest",
    )
    body = bot_a.get("/prompt").body
    own = body["text"].split("### Your own memory\n", 1)[1]
    assert own.splitlines()[:3] == [
        "- (2026-11-03) Newest",
        "- (2026-11-02) The release checklist lives in the ops wiki under runbooks The release"
        " checklist lives in the ops wiki under runbooks The release checklist lives in the ops"
        " wiki under runbooks The release checklist\u2026",
        "1 more fact on disk, not shown here: search them with recall. 1 entry shortened"
        " (\u2026): recall gives its whole text.",
    ]
    [block] = [b for b in body["blocks"] if b["scope"] == "bot:a"]
    assert [f["text"] for f in block["facts"]] == ["Newest", long.strip()]
    assert block["left_out"] == 1
