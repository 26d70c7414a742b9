"""THE fact-line grammar: parse and format memory files, and compute fact identities.

A memory file is a list of lines. A line is a fact only when it reads
`- (YYYY-MM-DD) <text>` with a real calendar date; every other line (headings, prose,
comments, malformed facts) is kept byte for byte. An optional trailing
`<!-- key=value ... -->` comment carries metadata.

This module does no I/O and knows nothing about scopes, files on disk or the index.
Nothing else in the project may know what a fact line looks like.
"""

import hashlib
import re
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from memstore.errors import InvalidFact
from memstore.vocabulary import FACT_ID_PATTERN, LINK_KINDS, MARKS, VISIBILITIES

MAX_TEXT_CHARS = 500
# A new or re-dated fact's date: not before this, and at most this far past today. Lines already
# in a file keep whatever real date they have (a hand edit wins); only writes are refused.
EARLIEST_DAY = date(1900, 1, 1)
LATEST_AHEAD = timedelta(days=366)
TAGS = ("note", "episode")
# Metadata holding a date, and the feedback mark (`memstore.facts.validity` owns their meaning).
DATE_KEYS = ("until", "review", "checked")
MARK_KEY = "mark"
# Links: `rel=supersedes:<id>,related_to:<id>` (kinds from the vocabulary, targets fact ids).
LINK_KEY = "rel"
_LINK_RE = re.compile(rf"({'|'.join(LINK_KINDS)}):({FACT_ID_PATTERN})")

# Fact text may hold any character but line breaks and control characters (a tab is fine):
# such a line is kept as prose, byte for byte, and nothing odd reaches the index (no NUL).
_CONTROL = "\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029"
_FACT_RE = re.compile(
    rf"\ufeff?- \(([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})\) ([^{_CONTROL}]+)\r?\n?"  # BOM, ending
)
_META_RE = re.compile(r"(.*?)\s*<!--((?:\s+[A-Za-z][A-Za-z0-9_-]*=\S*)+)\s+-->")
_TAG_RE = re.compile(r"\[(note|episode)\]\s")
_META_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
_META_VALUE_RE = re.compile(f"[^\\s<>{_CONTROL}]{{1,200}}")
_BAD_CHARS_RE = re.compile(f"[{_CONTROL}]")

HEADER = (
    "# Memory\n"
    "\n"
    "<!-- Safe to read, grep and edit. One fact per line: - (YYYY-MM-DD) text\n"
    "     Other lines are kept as they are. Delete a line to forget that fact. -->\n"
    "\n"
)


def fact_identity(text: str) -> str:
    """First 16 hex digits of SHA-1 over the text, whitespace collapsed, trimmed, lower-cased."""
    # str.split() splits on the same Unicode whitespace as the regex \s+, and is faster.
    canonical = " ".join(text.split()).lower()
    return hashlib.sha1(canonical.encode("utf-8")).hexdigest()[:16]


def line_text(day: date, text: str) -> str:
    """A fact's line without metadata: `- (YYYY-MM-DD) text`."""
    return f"- ({day.isoformat()}) {text}"


@dataclass(frozen=True, slots=True)
class FactLine:
    """One fact: its date, its text (including a `[note]`/`[episode]` tag) and its metadata."""

    day: date
    text: str
    meta: dict[str, str] = field(default_factory=dict, hash=False, compare=True)
    # Computed once: every reader of a file needs it for every line.
    identity: str = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "identity", fact_identity(self.text))

    @property
    def tag(self) -> str | None:
        if not self.text.startswith("["):
            return None
        match = _TAG_RE.match(self.text + " ")
        return match.group(1) if match else None

    @property
    def body(self) -> str:
        """The text without its tier tag."""
        match = _TAG_RE.match(self.text + " ")
        return self.text[match.end() :].strip() if match else self.text

    def __str__(self) -> str:
        line = line_text(self.day, self.text)
        if self.meta:
            pairs = " ".join(f"{key}={value}" for key, value in self.meta.items())
            line += f" <!-- {pairs} -->"
        return line


@dataclass(frozen=True, slots=True)
class Line:
    """One physical line of a file: its exact text with line ending, and the fact if it is one."""

    raw: str
    fact: FactLine | None = None


def parse_line(raw: str) -> FactLine | None:
    """The fact on this line (its ending and a leading BOM ignored), or None if it is not one."""
    match = _FACT_RE.fullmatch(raw)
    if not match:
        return None
    day = _day(match.group(1))
    if day is None:
        return None
    # Trailing blanks would hide a metadata comment from the parser, yet vanish when the fact
    # is rendered again: strip them first so a fact reads back the same after a round trip.
    rest = match.group(2).rstrip()
    meta: dict[str, str] = {}
    if "<!--" in rest and (meta_match := _META_RE.fullmatch(rest)) and meta_match.group(1).strip():
        rest = meta_match.group(1)
        for pair in meta_match.group(2).split():
            key, _, value = pair.partition("=")
            meta[key] = value
    text = normalise_spaces(rest)
    if not text:
        return None
    return FactLine(day=day, text=text, meta=meta)


_SPACE_RUN_RE = re.compile(r"[ \t]{2,}|\t")


def normalise_spaces(text: str) -> str:
    """The text with runs of spaces and tabs collapsed to one space and its ends trimmed (a fact's
    text as saved and as read from a hand-written line; the line itself stays as written)."""
    text = text.strip()
    if "  " in text or "\t" in text:  # the common line has neither: skip the regex
        text = _SPACE_RUN_RE.sub(" ", text)
    return text


_DAYS: dict[str, date | None] = {}


def _day(value: str) -> date | None:
    # Files repeat the same few dates thousands of times: remember what each string meant.
    try:
        return _DAYS[value]
    except KeyError:
        pass
    try:
        day: date | None = date.fromisoformat(value)
    except ValueError:
        day = None
    if len(_DAYS) > 100_000:
        _DAYS.clear()
    _DAYS[value] = day
    return day


def parse_text(content: str) -> list[Line]:
    """Split a file's text into lines (endings kept) and parse each; ''.join(raw) == content.

    Only "\n" ends a line (an "\r" before it belongs to the ending), as for grep and editors:
    str.splitlines() would also split at form feeds, U+2028 and friends, and a rewrite of
    such a line would then glue the next line onto it."""
    return [Line(raw=raw, fact=parse_line(raw)) for raw in _split(content)]


def _split(content: str) -> list[str]:
    lines = content.split("\n")
    last = lines.pop()
    result = [line + "\n" for line in lines]
    if last:
        result.append(last)
    return result


def render(lines: list[Line]) -> str:
    """The file's text: the exact raw lines joined."""
    return "".join(line.raw for line in lines)


def ending_of(raw: str) -> str:
    """A physical line's ending: "\r\n", "\n" or "" (the last line of a file may have none)."""
    if raw.endswith("\r\n"):
        return "\r\n"
    return "\n" if raw.endswith("\n") else ""


def newline_of(lines: list[Line]) -> str:
    """The file's line ending: CRLF if its first ended line uses it, else LF."""
    for line in lines:
        if ending := ending_of(line.raw):
            return ending
    return "\n"


def line_for(fact: FactLine, newline: str = "\n") -> Line:
    """A new physical line holding this fact."""
    return Line(raw=str(fact) + newline, fact=fact)


def append_fact(lines: list[Line], fact: FactLine) -> list[Line]:
    """The lines with this fact added at the end (a missing final newline is supplied first)."""
    newline = newline_of(lines)
    result = list(lines)
    if result and not result[-1].raw.endswith("\n"):
        last = result[-1]
        result[-1] = Line(raw=last.raw + newline, fact=parse_line(last.raw + newline))
    result.append(line_for(fact, newline))
    return result


def replace_fact(lines: list[Line], index: int, fact: FactLine) -> list[Line]:
    """The lines with line `index` replaced by this fact, keeping that line's ending (and BOM)."""
    old = lines[index].raw
    prefix = "\ufeff" if old.startswith("\ufeff") else ""
    result = list(lines)
    result[index] = Line(raw=prefix + str(fact) + ending_of(old), fact=fact)
    return result


def remove_lines(lines: list[Line], indexes: set[int]) -> list[Line]:
    """The lines without those at `indexes` (a BOM on a removed first line is kept)."""
    result = [line for i, line in enumerate(lines) if i not in indexes]
    if 0 in indexes and lines[0].raw.startswith("\ufeff"):
        result.insert(0, Line(raw="\ufeff"))
    return result


def clean_text(text: str) -> str:
    """Validated fact text, whitespace-normalised; raises InvalidFact saying what is wrong."""
    if not isinstance(text, str):
        raise InvalidFact("Fact text must be a string.")
    if "\n" in text or "\r" in text:
        raise InvalidFact("Fact text must be one line: it contains a line break.")
    if bad := _BAD_CHARS_RE.search(text):
        raise InvalidFact(f"Fact text contains a control character (U+{ord(bad.group()):04X}).")
    text = normalise_spaces(text)
    if not text:
        raise InvalidFact("Fact text is empty.")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidFact(
            f"Fact text is {len(text)} characters; the limit is {MAX_TEXT_CHARS}. "
            "Split it into shorter facts."
        )
    if "<!--" in text or "-->" in text:
        raise InvalidFact("Fact text must not contain '<!--' or '-->' (reserved for metadata).")
    return text


def clean_meta(meta: dict[str, object] | None) -> dict[str, str]:
    """Validated metadata as strings; raises InvalidFact naming the bad key or value."""
    result: dict[str, str] = {}
    for key, value in (meta or {}).items():
        if not _META_KEY_RE.fullmatch(str(key)):
            raise InvalidFact(f"Metadata key {key!r} must be letters, digits, '_' or '-'.")
        text = _format_meta_value(value)
        if not _META_VALUE_RE.fullmatch(text) or "--" in text:
            raise InvalidFact(
                f"Metadata {key}={text!r} must be 1-200 characters with no spaces, control characters, '<', '>' or '--'."
            )
        result[str(key)] = text
    if "importance" in result:
        _check_number(result, "importance", low=0.0, high=1.0, low_open=False)
    if "weight" in result:
        _check_number(result, "weight", low=0.0, high=1e6, low_open=True)
    if "visibility" in result and result["visibility"] not in VISIBILITIES:
        raise InvalidFact(f"visibility must be one of {', '.join(VISIBILITIES)}.")
    for key in DATE_KEYS:
        if key in result:
            _check_day(key, result[key])
    if result.get(MARK_KEY, MARKS[0]) not in MARKS:
        raise InvalidFact(f"mark must be one of {', '.join(MARKS)}.", detail={"field": MARK_KEY})
    return result


def _check_day(key: str, value: str) -> None:
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise InvalidFact(
            f"{key} must be a date written YYYY-MM-DD, not {value!r}.", detail={"field": key}
        )
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise InvalidFact(
            f"{key}={value} is not a real calendar date.", detail={"field": key}
        ) from None
    if day < EARLIEST_DAY:
        raise InvalidFact(
            f"{key}={value} is before {EARLIEST_DAY.isoformat()}.", detail={"field": key}
        )


def make_fact(
    *, text: str, day: date, tag: str | None = None, meta: dict[str, object] | None = None
) -> FactLine:
    """A validated new fact; `tag` ('note'/'episode') is prefixed unless the text has one."""
    body = clean_text(text)
    if tag is not None:
        if tag not in TAGS:
            raise InvalidFact(f"Tag must be one of {', '.join(TAGS)}, not {tag!r}.")
        if not _TAG_RE.match(body + " "):
            body = f"[{tag}] {body}"
    _check_body(body)
    if len(body) > MAX_TEXT_CHARS:
        raise InvalidFact(f"Fact text with its tag is over {MAX_TEXT_CHARS} characters.")
    return FactLine(day=day_check(day), text=body, meta=clean_meta(meta))


def day_check(day: date, *, today: date | None = None, what: str = "a fact's date") -> date:
    """The date of a fact being written (or a day asked about), if sane: from 1900-01-01 to a
    year past today; InvalidFact (saying the range) otherwise."""
    today = today or date.today()
    latest = today + LATEST_AHEAD
    if not isinstance(day, date) or not EARLIEST_DAY <= day <= latest:
        raise InvalidFact(
            f"Date {day} is out of range: {what} must be between "
            f"{EARLIEST_DAY.isoformat()} and {latest.isoformat()} (a year from today).",
            detail={"earliest": EARLIEST_DAY.isoformat(), "latest": latest.isoformat()},
        )
    return day


def with_text(fact: FactLine, text: str) -> FactLine:
    """The same fact with new text (validated); the tag is kept unless the new text sets one."""
    body = clean_text(text)
    if fact.tag and not _TAG_RE.match(body + " "):
        body = f"[{fact.tag}] {body}"
    _check_body(body)
    if len(body) > MAX_TEXT_CHARS:
        raise InvalidFact(f"Fact text with its tag is over {MAX_TEXT_CHARS} characters.")
    return replace(fact, text=body)


def _check_body(text: str) -> None:
    match = _TAG_RE.match(text + " ")
    if match and not text[match.end() :].strip():
        raise InvalidFact(f"Fact text is empty apart from its [{match.group(1)}] tag.")


def _format_meta_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _check_number(
    meta: dict[str, str], key: str, *, low: float, high: float, low_open: bool
) -> None:
    try:
        number = float(meta[key])
    except ValueError:
        raise InvalidFact(f"{key} must be a number, not {meta[key]!r}.") from None
    too_low = number <= low if low_open else number < low
    if too_low or number > high or number != number:
        bound = f"> {low:g}" if low_open else f"between {low:g} and {high:g}"
        raise InvalidFact(f"{key} must be {bound}, not {meta[key]}.")


def links_of(fact: FactLine) -> list[tuple[str, str]]:
    """The fact's links as (kind, target id), in written order; malformed entries are skipped
    (kept in the file as written, never indexed)."""
    value = fact.meta.get(LINK_KEY, "") if fact.meta else ""
    found: list[tuple[str, str]] = []
    for item in value.split(","):
        match = _LINK_RE.fullmatch(item.strip().lower())
        if match and (pair := (match.group(1), match.group(2))) not in found:
            found.append(pair)
    return found


def with_links(fact: FactLine, links: list[tuple[str, str]]) -> FactLine:
    """The same fact with exactly these links (no `rel` key when there are none); raises
    InvalidFact for an unknown kind or a target that is not a fact id."""
    meta = {k: v for k, v in fact.meta.items() if k != LINK_KEY}
    pairs = list(dict.fromkeys(links))
    for kind, target in pairs:
        if not _LINK_RE.fullmatch(f"{kind}:{target}"):
            raise InvalidFact(
                f"A link is <kind>:<fact id> with kind one of {', '.join(LINK_KINDS)}; "
                f"{kind}:{target} is not."
            )
    if pairs:
        meta[LINK_KEY] = ",".join(f"{kind}:{target}" for kind, target in pairs)
    return replace(fact, meta=clean_meta(meta))


def parse_date(value: str) -> date:
    """A real calendar date from YYYY-MM-DD; raises InvalidFact otherwise."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise InvalidFact(f"Date {value!r} must be written YYYY-MM-DD.")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InvalidFact(f"Date {value!r} is not a real calendar date.") from None
