"""The bots' door for learning: report an exchange (learned from in the background) and
summarize a text into facts."""

from memstore.learning import exchange_submit
from memstore.learning.summarize import MAX_TEXT_CHARS, Summary, text_summarize

__all__ = ["MAX_TEXT_CHARS", "Summary", "exchange_submit", "text_summarize"]
