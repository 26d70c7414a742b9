"""Fixtures for the learner: the scripted OpenAI-compatible server on loopback (tests/helpers.py)
and learning settings pointing at it."""

import pytest

from tests.helpers import FakeModel, learner_on


@pytest.fixture
def fake_model():
    model = FakeModel()
    yield model
    model.close()


@pytest.fixture
def learning(settings, fake_model):
    """Learning switched on in write mode against the fake model, with instant retries."""
    return learner_on(settings, fake_model, mode="write", attempts=3)
