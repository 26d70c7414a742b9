"""Fixtures for the learner: the scripted OpenAI-compatible server on loopback (tests/helpers.py)
and learning settings pointing at it."""

import pytest

from tests.helpers import FakeModel


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
