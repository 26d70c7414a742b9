"""Fixtures for the learner: a scripted OpenAI-compatible server on loopback, learning settings
pointing at it, and helpers that read what ended up in the Markdown files."""

from pathlib import Path

import pytest

from memstore import markdown
from memstore.access import Context, Room
from tests.memstore.learning.fake_model import FakeModel


@pytest.fixture
def fake_model():
    model = FakeModel()
    yield model
    model.close()


@pytest.fixture
def learning(settings, fake_model):
    """Learning switched on in write mode against the fake model, with instant retries."""
    settings.LEARNING_BASE_URL = fake_model.url
    settings.LEARNING_MODEL = "scripted"
    settings.LEARNING_API_KEY = "test-key"
    settings.LEARNING_MODE = "write"
    settings.LEARNING_DAILY_TOKENS = 1_000_000
    settings.LEARNING_TIMEOUT = 2.0
    settings.LEARNING_RETRY_ATTEMPTS = 3
    settings.LEARNING_RETRY_WAIT = 0.0
    return fake_model


def direct(bot: str = "ada", person: str = "alice", room: str = "dm-alice") -> Context:
    return Context(bot=bot, room=Room(id=room, kind="direct"), person=person)


def group(bot: str = "ada", room: str = "team", person: str | None = None) -> Context:
    return Context(bot=bot, room=Room(id=room, kind="group"), person=person)


def facts_on_disk(root: Path) -> dict[str, list[markdown.FactLine]]:
    """Every fact line of every memory file, by path relative to the root."""
    found = {}
    for path in sorted(root.rglob("*.md")):
        lines = markdown.parse_text(path.read_text())
        found[str(path.relative_to(root))] = [line.fact for line in lines if line.fact]
    return {rel: facts for rel, facts in found.items() if facts}


def texts_on_disk(root: Path) -> dict[str, list[str]]:
    return {rel: [f.text for f in facts] for rel, facts in facts_on_disk(root).items()}
