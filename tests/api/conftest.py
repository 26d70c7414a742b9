"""API fixtures: registered bots with tokens and a client that speaks for bot `a`
(the client and the Markdown builders are in tests/helpers.py)."""

import pytest

from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient


@pytest.fixture
def tokens(db) -> dict[str, str]:
    """Bots `a` and `b`, both in project apollo (neither in zeus), with one token each; both
    may act for the registered person alice."""
    result = {}
    person_add(name="alice")
    for slug in ("a", "b"):
        bot_create(slug=slug, display_name=slug.upper())
        project_join(bot=slug, project="apollo")
        person_link(person="alice", bot=slug)
        result[slug] = token_create(bot=slug, name="tests").token
    return result


@pytest.fixture
def bot_a(tokens) -> BotClient:
    return BotClient(token=tokens["a"])
