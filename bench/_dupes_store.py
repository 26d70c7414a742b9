"""The store `bench duplicates` suggests merges in: LoCoMo dev lines, varied generated sentences,
and planted look-alikes of both, deterministic for a seed.

- Sentences: `bench.health`'s 40 shapes and its words, plus EVENT_SHAPES (plans, dates, counts,
  negations and verbs of state: "The {t} was cancelled", "{p} decided to postpone the {t}").
- Planted, each a later line made from an earlier one (generated or LoCoMo), in VARIANTS:
  true near-duplicates (`light`: case, a full stop, an article; `reword`: a phrase for a phrase
  of the same sense) and look-alikes that say something else: one per family the rule refuses
  (`negation`, `number`, `date`, `name`, `state`) and some it has no word list for (`kin`:
  "Ana lives in Lisbon" / "Ana's sister lives in Lisbon"; `qualifier`: an adjective added;
  `direction`: "to" for "from").

The LoCoMo lines are read at run time from ../shared/bench/locomo-dev (CC BY-NC 4.0), never
written into the repository.
"""

import random
import re
from datetime import date, timedelta

from bench.health import (
    ANIMALS,
    DAYS,
    FOODS,
    HOBBIES,
    KIN,
    MONTHS,
    PEOPLE,
    PLACES,
    SHAPES,
    THINGS,
    TOOLS,
    locomo_lines,
)

EVENT_SHAPES = [
    "The {t} was cancelled",
    "{p} decided to postpone the {t}",
    "{p} postponed the {t} to {m}",
    "The {t} moved to {d}",
    "{p} started the {t} in {m}",
    "{p} finished the {t} on {d}",
    "{p} does not eat {f}",
    "{p} never drinks coffee after {n}:00",
    "{p} has {n} {a}s at home",
    "The {t} costs {n}00 euros",
    "{p} met {q} in {c} in {m}",
    "{p} will visit {c} next {d}",
    "{p} visited {c} last {m}",
    "{p}'s {k} started a new job in {c}",
    "{p} quit {h} after {n} years",
    "{p} is no longer on the {t} team",
    "{p} prefers {h} to {h2}",
    "{p} plans to learn {h} in {m}",
    "{p} has been doing {h} for {n} years",
    "The {t} deadline is {d} at {n}:00",
    "{p} approved the {t} for {c}",
    "{p} rejected the {t} draft from {q}",
    "{p} bought a flat in {c}",
    "{p} sold the {a} to {q}",
    "The {t} in {c} is on hold until {m}",
]
REWORDS = [
    ("prefers", "likes"),
    ("is learning", "has been learning"),
    ("bought", "purchased"),
    ("lives in", "is living in"),
    ("keeps", "stores"),
    ("asked for", "requested"),
    ("finished", "completed"),
    ("started", "began"),
    ("is allergic to", "has an allergy to"),
    ("owns", "has"),
    ("thinks", "believes"),
    ("favourite", "favorite"),
    ("cannot stand", "can't stand"),
    ("wants", "would like"),
    ("took up", "picked up"),
    ("runs", "leads"),
    ("loves", "adores"),
    ("enjoys", "likes"),
    ("talked about", "discussed"),
    ("went to", "visited"),
    ("is planning", "plans"),
    ("friends", "pals"),
]
STATE_SWAPS = [
    ("cancelled", "postponed"),
    ("postponed", "cancelled"),
    ("postpone", "cancel"),
    ("started", "finished"),
    ("finished", "started"),
    ("moved", "cancelled"),
    ("approved", "rejected"),
    ("rejected", "approved"),
    ("bought", "sold"),
    ("sold", "bought"),
    ("quit", "started"),
    ("joined", "left"),
    ("is on hold", "is cancelled"),
    ("will visit", "visited"),
    ("plans to learn", "learned"),
]
QUALIFIERS = ["new", "small", "local", "online", "shared", "private", "old", "big"]
VARIANTS = {
    "light": 450,
    "reword": 450,
    "negation": 150,
    "number": 150,
    "date": 150,
    "name": 150,
    "state": 150,
    "kin": 150,
    "qualifier": 150,
    "direction": 150,
}
_NUM = re.compile(r"\b\d+\b")
_DATE = re.compile(r"\b(" + "|".join(DAYS + MONTHS) + r")\b")


def sentence(rng: random.Random) -> str:
    """One generated sentence: a shape of bench.health's or an event shape, words filled in."""
    pick = rng.choice
    shape = pick(SHAPES) if rng.random() < 0.6 else pick(EVENT_SHAPES)
    return shape.format(
        p=pick(PEOPLE), q=pick(PEOPLE), c=pick(PLACES), d=pick(DAYS), f=pick(FOODS),
        f2=pick(FOODS), o=pick(TOOLS), o2=pick(TOOLS), h=pick(HOBBIES), h2=pick(HOBBIES),
        t=pick(THINGS), t2=pick(THINGS), k=pick(KIN), a=pick(ANIMALS), a2=pick(ANIMALS),
        n=rng.randint(2, 19), m=pick(MONTHS),
    )  # fmt: skip


def variant(kind: str, text: str, rng: random.Random) -> str | None:
    """A planted look-alike of `text` of this kind, or None when the text has no place for it."""
    return _MAKERS[kind](text, rng)


def _light(text: str, rng: random.Random) -> str | None:
    edits = [
        lambda t: t[0].lower() + t[1:] + ".",
        lambda t: t.rstrip(".") + "!" if not t.endswith("!") else None,
        lambda t: t[4:] if t.startswith("The ") else None,
        lambda t: t.replace(" the ", " their ", 1) if " the " in t else None,
        lambda t: t.rstrip(".") if t.endswith(".") else t + ".",
    ]
    for edit in rng.sample(edits, len(edits)):
        if (out := edit(text)) and out != text:
            return out
    return None


def _swap_phrase(text: str, table, rng: random.Random) -> str | None:
    fits = [(a, b) for a, b in table if re.search(rf"\b{re.escape(a)}\b", text)]
    if not fits:
        return None
    a, b = rng.choice(fits)
    return re.sub(rf"\b{re.escape(a)}\b", b, text, count=1)


def _negation(text: str, rng: random.Random) -> str | None:
    for said, negated in ((" is ", " is not "), (" was ", " was not "), (" has ", " has never ")):
        if said in text and "not" not in text:
            return text.replace(said, negated, 1)
    words = text.split(" ")
    if len(words) > 2 and words[1].endswith("s") and words[1][0].islower():
        return " ".join([words[0], "no longer", *words[1:]])
    return None


def _number(text: str, rng: random.Random) -> str | None:
    found = _NUM.findall(text)
    if not found:
        return text.rstrip(".") + f" {rng.choice(['twice', 'three times', 'for 2 years'])}"
    return _NUM.sub(lambda m: str(int(m.group()) + rng.randint(1, 9)), text, count=1)


def _date(text: str, rng: random.Random) -> str | None:
    if match := _DATE.search(text):
        pool = DAYS if match.group() in DAYS else MONTHS
        other = rng.choice([d for d in pool if d != match.group()])
        return text[: match.start()] + other + text[match.end() :]
    return text.rstrip(".") + rng.choice([" last week", " in March", " yesterday", " on Friday"])


def _name(text: str, rng: random.Random) -> str | None:
    first = text.split(" ", 1)[0].removesuffix("'s")
    if not first[:1].isupper() or first in ("The", "A", "An"):
        return None
    others = [p for p in PEOPLE + ["Caroline", "Melanie", "Jon", "Gina"] if p != first]
    return rng.choice(others) + text[len(first) :]


def _kin(text: str, rng: random.Random) -> str | None:
    first, _, rest = text.partition(" ")
    if not first[:1].isupper() or first in ("The", "A", "An") or first.endswith("'s") or not rest:
        return None
    return f"{first}'s {rng.choice(KIN)} {rest}"


def _qualifier(text: str, rng: random.Random) -> str | None:
    spots = [m for m in re.finditer(r"\b(a|the) (?=[a-z])", text)]
    if not spots:
        return None
    spot = rng.choice(spots)
    return text[: spot.end()] + rng.choice(QUALIFIERS) + " " + text[spot.end() :]


def _direction(text: str, rng: random.Random) -> str | None:
    table = [(" to ", " from "), (" from ", " to "), (" with ", " for "), (" in ", " near ")]
    return _swap_phrase(text, [(a.strip(), b.strip()) for a, b in table], rng)


_MAKERS = {
    "light": _light,
    "reword": lambda t, rng: _swap_phrase(t, REWORDS, rng),
    "negation": _negation,
    "number": _number,
    "date": _date,
    "name": _name,
    "state": lambda t, rng: _swap_phrase(t, STATE_SWAPS, rng),
    "kin": _kin,
    "qualifier": _qualifier,
    "direction": _direction,
}


def store_lines(total: int, seed: int) -> list[tuple[date, str, str]]:
    """(day, text, kind) for `total` lines: kind "locomo", "generated" or a VARIANTS kind."""
    rng = random.Random(seed)
    today = date(2026, 11, 30)
    lines: list[tuple[date, str, str]] = []
    seen: set[str] = set()
    for day, text in locomo_lines():
        if text.lower() not in seen:
            seen.add(text.lower())
            lines.append((day, text, "locomo"))
    planted = sum(VARIANTS.values())
    while len(lines) < total - planted:
        text = sentence(rng)
        if text.lower() not in seen:
            seen.add(text.lower())
            lines.append((today - timedelta(days=rng.randint(30, 720)), text, "generated"))
    bases = list(lines)
    locomo = [line for line in bases if line[2] == "locomo"]
    for kind, count in VARIANTS.items():
        made = tries = 0
        while made < count and tries < count * 200:  # a small store may hold too few bases
            tries += 1
            # A third from the LoCoMo lines, so real text has look-alikes too.
            day, text, _ = rng.choice(locomo if rng.random() < 0.33 else bases)
            out = variant(kind, text, rng)
            if out and out.lower() not in seen:
                seen.add(out.lower())
                lines.append((day + timedelta(days=rng.randint(1, 20)), out, kind))
                made += 1
    rng.shuffle(lines)
    return lines
