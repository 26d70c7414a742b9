"""The files this process parsed last, remembered by their exact text: a write to a memory file
reads it, parses every line and writes it back, so a bot saving into this month's log (1,000
lines: ~10 ms of parsing on the 2-core box) would parse the same text again on every save.

`lines_of(rel, text)` gives the parsed lines of `text`, reusing the ones remembered for that
file when its text is exactly the one remembered (a string comparison, no stat trusted); a write
remembers what it wrote (`remember`). Lines are immutable, and callers get their own list.
At most `FILES` files are remembered, least recently used first out.
"""

import threading
from collections import OrderedDict

from memstore.facts import markdown
from memstore.facts.markdown import Line

FILES = 64

_parsed: OrderedDict[str, tuple[str, tuple[Line, ...]]] = OrderedDict()
_lock = threading.Lock()


def lines_of(rel: str, text: str) -> list[Line]:
    """`markdown.parse_text(text)`, from memory when `rel` was last parsed or written as `text`."""
    with _lock:
        found = _parsed.get(rel)
        if found is not None and found[0] == text:
            _parsed.move_to_end(rel)
            return list(found[1])
    lines = markdown.parse_text(text)
    remember(rel, text, lines)
    return lines


def remember(rel: str, text: str, lines: list[Line]) -> None:
    """What `rel` now holds: `text`, parsed as `lines` (== markdown.parse_text(text))."""
    with _lock:
        _parsed[rel] = (text, tuple(lines))
        _parsed.move_to_end(rel)
        while len(_parsed) > FILES:
            _parsed.popitem(last=False)
