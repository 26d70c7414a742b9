"""Upkeep fixtures: words-only similarity (fast, deterministic), and the scripted model server
(tests/helpers.py) as the learning model upkeep and synthesis call."""

import pytest

from memstore.llm.config import learner_config, model_client
from tests.helpers import FakeModel


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"


@pytest.fixture
def fake_model(settings):
    model = FakeModel()
    settings.LEARNING_BASE_URL = model.url
    settings.LEARNING_MODEL = "scripted"
    settings.LEARNING_MODE = "write"
    settings.LEARNING_DAILY_TOKENS = 1_000_000
    settings.LEARNING_TIMEOUT = 5.0
    yield model
    model.close()


@pytest.fixture
def client(fake_model):
    return model_client(learner_config())
