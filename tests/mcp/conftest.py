"""MCP test fixtures: a registered bot with a token (the SDK client helpers are in
tests/helpers.py)."""

import pytest

from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create


@pytest.fixture
def scout_token(transactional_db, memory_root) -> str:
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    person_add(name="alice")  # the registered person scout may act for
    person_link(person="alice", bot="scout")
    return token_create(bot="scout").token
