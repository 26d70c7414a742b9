"""The bots' door for feedback on a fact: useful (still true), outdated, wrong, do-not-use."""

from memstore.store.feedback import FeedbackGiven, bot_feedback
from memstore.vocabulary import FEEDBACKS

__all__ = ["FEEDBACKS", "FeedbackGiven", "bot_feedback"]
