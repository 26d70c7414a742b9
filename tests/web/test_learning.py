"""The learning page and the home page's learning failures (the learner is a separate module)."""

import pytest

from memstore.console.learning import learning_available
from tests.web.test_pages import plain

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(learning_available(), reason="the learner is installed")
def test_learning_page_says_when_there_is_no_learner(ann, workspace):
    assert "The learner is not part of this installation yet" in plain(
        ann.get("/bots/ava/learning/")
    )
