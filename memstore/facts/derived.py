"""What a fact line was made from: the links that make one line a derived copy of another, so
an erase of a fact takes what was made from it too.

A line is *derived from* a fact when it says so in its own metadata, in the file (the truth,
so the link survives a rebuild of the index from the files):

    from=<id>[,<id>...]     made from these facts: the "remember that" path's copy of a
                            person's statement kept with their name ("sam: Prefers tea" is made
                            from "Prefers tea", the identity the same statement has in sam's
                            own memory)
    rel=supersedes:<id>     a newer version of that fact: a merge or rewrite (synthesis), the
                            kept fact of a merged pair, the newer side of a contradiction

and a line kept outside a person's own memory may say whom it is about (`about=<person>`), so
that person's erase reaches it. Who may erase which copy is `memstore.privacy`'s rule; this
module only reads and writes the keys.
"""

import re
from datetime import date

from memstore.facts import markdown
from memstore.vocabulary import FACT_ID_PATTERN

FROM_KEY = "from"
ABOUT_KEY = "about"
MAX_SOURCES = 11  # ids that fit one metadata value (at most 200 characters)
_ID_RE = re.compile(FACT_ID_PATTERN)


def derived_meta(*, sources: list[str], about: str | None = None) -> dict[str, str]:
    """The metadata that links a new line to the facts it is made from (and whom it is about)."""
    ids = [s for s in dict.fromkeys(sources) if _ID_RE.fullmatch(s)][:MAX_SOURCES]
    meta = {FROM_KEY: ",".join(ids)} if ids else {}
    return meta | ({ABOUT_KEY: about} if about else {})


def sources_of(meta: dict[str, str] | None) -> frozenset[str]:
    """The facts a line with this metadata was made from: its `from=` ids and the facts it
    supersedes."""
    meta = meta or {}
    named = {i.strip().lower() for i in str(meta.get(FROM_KEY, "")).split(",")}
    line = markdown.FactLine(day=date(2000, 1, 1), text="-", meta=dict(meta))
    superseded = {target for kind, target in markdown.links_of(line) if kind == "supersedes"}
    return frozenset({i for i in named if _ID_RE.fullmatch(i)} | superseded)


def about_of(meta: dict[str, str] | None) -> str | None:
    """Whom a line kept outside a person's memory is about (None: no one named)."""
    value = str((meta or {}).get(ABOUT_KEY, "")).strip()
    return value or None
