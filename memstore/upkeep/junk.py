"""What a health report calls junk: facts that are too short to mean anything, transient status
("build succeeded", "done"), and the bot's own instructions restated as memory. Pure rules over
the text; the report decides what to do with them."""

import re

MIN_CHARS = 6
MIN_WORDS = 2

_TRANSIENT = re.compile(
    r"^(?:the\s+|my\s+|our\s+)?(?:build|tests?|test suite|ci|deploy(?:ment)?|pipeline|job|task|"
    r"run|migration|upload|download|install(?:ation)?|compil(?:ation|e)|lint(?:ing)?|check)s?\s+"
    r"(?:has\s+|have\s+|is\s+|are\s+|was\s+|were\s+)?(?:just\s+)?(?:succeeded|passed|failed|"
    r"completed|finished|done|ok|okay|green|red|running|started|complete|successful)\b"
    r"|^(?:done|finished|completed|working on it|in progress|on it|starting now|all good|"
    r"looks good|ok|okay|got it|will do|sure)\W*$"
    r"|^(?:just\s+)?(?:ran|re-?ran|restarted|rebooted|retried)\s+(?:the\s+)?\w+(?:\s+again)?\W*$",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"^(?:you are|you're|act as|behave as|pretend to be)\b"
    r"|\bas an ai\b|\b(?:system prompt|your instructions|these instructions)\b"
    r"|^(?:do not|don't|never|always)\s+(?:reveal|disclose|make up|hallucinate|break character|"
    r"mention that you are)\b",
    re.IGNORECASE,
)


def junk_reason(body: str) -> str | None:
    """Why this fact text is junk ("too short", "transient status", "restated instructions"),
    or None."""
    text = body.strip()
    if len(text) < MIN_CHARS or len(text.split()) < MIN_WORDS:
        return "too short"
    if _TRANSIENT.search(text):
        return "transient status"
    if _INSTRUCTION.search(text):
        return "restated instructions"
    return None
