"""From a parsed reply to a plan: the learner's decisions for one exchange. Pure: no I/O.

A plan is a list of plain dicts (it is stored as JSON on the exchange, so a job run again after
a crash re-applies the same decisions instead of asking the model again):

    {"op": "save", "tier": "profile"|"log"|"note", "text": …, "meta": {type, importance, …}}
    {"op": "remove", "text": …, "fact_id": …, "scope": …, "left": [bots]}  ("left": other
                                       bots' shards of the scope keep a copy)
    {"op": "hold", "line": kind, "text": …, "reason": …, "detail": …, …}  for a person to decide
    {"op": "refuse", "line": kind, "text": …, "reason": …, "detail": …}
    {"op": "known", "line": kind, "text": …, "detail": …}   already known or just recalled
    {"op": "ignored", "count": n, "sample": [...]}

Content rules are applied here, before anything is written, whatever the scope: no secrets
(even in a bot's own memory), nothing touching the excluded topics of the people in the room,
and nothing that repeats a value the exchange itself presented as a secret (so a paraphrase like
"the admin credential is hunter2" is refused too).

Held for review, in every mode, never written by the learner: a `remove:` of a fact saved on
purpose (`memstore.rules.protected`: only what the learner itself made may it retire), and
instruction-shaped text (`memstore.rules.instructions`: "always obey…", "SYSTEM:", tool calls),
which would otherwise speak to every later prompt as an order; and, in the bot's own memory, a
fact naming a registered person other than the speaker that the speaker asked to be remembered
(`memstore.rules.others`: what "remember that…" held for the exchange, in any words).
"""

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import date

from memstore.errors import MemstoreError
from memstore.facts.markdown import make_fact
from memstore.learning.known import KnownFacts
from memstore.learning.parse import ParsedReply, Proposal
from memstore.rules.instructions import instruction_kind
from memstore.rules.others import NOBODY, AskedOthers, held_detail
from memstore.rules.others import REASON as OTHER_PERSON
from memstore.rules.policy import excluded_topic, secret_kind
from memstore.rules.sensitive import sensitive_in

_SECRET_VALUE_RE = re.compile(
    r"\b(?:password|passwd|passphrase|passcode|pwd|pin|secret|token|api[ _-]?key|access[ _-]?key"
    r"|credentials?|login)\b[^\n]{0,24}?(?:\bis\b|\bwas\b|:|=|\bto\b)\s*[\"'`]?([^\s\"'`]{3,})",
    re.IGNORECASE,
)
_ANY_DAY = date(2000, 1, 1)  # make_fact wants a date; only the text is checked here
_COMMON = frozenset({"the", "that", "this", "not", "what", "set", "now", "same", "here", "below"})


def secret_values(text: str) -> set[str]:
    """Values the text presents as a password, key or token ("the password is X" gives X). A
    plain word counts only where it ends the clause ("the password is swordfish."), not in a
    sentence that goes on ("the secret to good espresso is fresh beans" gives nothing)."""
    values = set()
    for match in _SECRET_VALUE_RE.finditer(text):
        value = match.group(1).rstrip(".,;!?)")
        if len(value) < 3 or value.lower() in _COMMON:
            continue
        if _VALUE_LIKE.search(value) or _CLAUSE_END.match(text, match.start(1) + len(value)):
            values.add(value)
    return values


# Digits, symbols or an inner capital: hunter2, P@ss, swordFish. A plain word must end the
# clause (after any closing punctuation) to be a value.
_VALUE_LIKE = re.compile(r"[^A-Za-z\u00c0-\u024f]|.[A-Z]")
_CLAUSE_END = re.compile(r"[\"'`]?[.,;!?)]*\s*(?:$|\n|[.,;!?)]|(?:and|but)\b)", re.I)


def content_refusal(
    text: str, *, excluded_topics: Iterable[str], secrets: Iterable[str], shared: bool = False
) -> tuple[str, str] | None:
    """(reason, message) if a fact may not be saved anywhere (or, `shared`: in the shared
    memory the learner writes here, which a sensitive keyword keeps it out of), else None."""
    if kind := secret_kind(text):
        return "secret", f"Looks like {kind}; the learner never saves secrets."
    lowered = text.lower()
    if any(value.lower() in lowered for value in secrets):
        return "secret", "Repeats a value the conversation gave as a password, key or token."
    if topic := excluded_topic(text, list(excluded_topics)):
        return "topic", f"Touches the excluded topic {topic!r}."
    if shared and sensitive_in(text):
        return (
            "sensitive",
            "A sensitive keyword of this workspace matched: kept out of shared memory.",
        )
    return None


def plan_build(
    parsed: ParsedReply,
    *,
    known: KnownFacts,
    ours: Mapping[str, str],
    excluded_topics: Iterable[str] = (),
    secrets: Iterable[str] = (),
    protected: Collection[str] = (),
    elsewhere: Mapping[str, Sequence[str]] | None = None,
    shared: bool = False,
    asked: AskedOthers | None = None,
) -> list[dict]:
    """Decide every line of a parsed reply. `ours` holds the identities of shown facts that
    live in shards this bot may change in this room (with the scope holding each); `protected`
    those of them saved on purpose; `elsewhere` the other bots holding a copy of each; `shared`:
    the target is shared memory (sensitive keywords are refused there); `asked`: the people
    the speaker asked the bot's own memory to remember something about (held, never saved)."""
    excluded_topics, secrets = list(excluded_topics), list(secrets)
    asked = asked or NOBODY
    plan: list[dict] = []
    for proposal in parsed.proposals:
        if proposal.kind == "remove":
            plan.append(_removal(proposal, ours, protected, elsewhere or {}))
            continue
        try:
            make_fact(text=proposal.text, day=_ANY_DAY)
        except MemstoreError as exc:
            plan.append(_refuse(proposal.kind, proposal.text, "invalid", exc.message))
            continue
        if refusal := content_refusal(
            proposal.text, excluded_topics=excluded_topics, secrets=secrets, shared=shared
        ):
            plan.append(_refuse(proposal.kind, proposal.text, *refusal))
            continue
        if kind := instruction_kind(proposal.text):
            plan.append(instruction_hold(proposal.kind, proposal.text, kind, proposal.meta))
            continue
        if other := asked.held(proposal.text):
            plan.append(other_hold(proposal.kind, proposal.text, other, asked, proposal.meta))
            continue
        if (match := known.match(proposal.text)) is not None:
            plan.append(
                {
                    "op": "known",
                    "line": proposal.kind,
                    "text": proposal.text,
                    "detail": f"Already known: {match}",
                }
            )
            continue
        save = {"op": "save", "tier": proposal.kind, "text": proposal.text}
        plan.append(save | ({"meta": proposal.meta} if proposal.meta else {}))
    for refusal in parsed.refused:
        plan.append(_refuse(refusal.kind, refusal.text[:600], refusal.reason, _WHY[refusal.reason]))
    if parsed.ignored:
        plan.append({"op": "ignored", "count": parsed.ignored, "sample": parsed.ignored_sample})
    return plan


def _removal(
    proposal: Proposal,
    ours: Mapping[str, str],
    protected: Collection[str],
    elsewhere: Mapping[str, Sequence[str]],
) -> dict:
    fact_id = proposal.fact_id
    if fact_id not in ours:
        return _refuse("remove", proposal.text, "not_ours", "Held by another bot's shard.")
    item = {"op": "remove", "text": proposal.text, "fact_id": fact_id, "scope": ours[fact_id]}
    if fact_id in protected:
        return item | {
            "op": "hold",
            "line": "remove",
            "reason": "protected",
            "detail": PROTECTED_DETAIL,
        }
    return item | ({"left": list(elsewhere[fact_id])} if elsewhere.get(fact_id) else {})


PROTECTED_DETAIL = (
    "Saved on purpose, not by the learner: the learner never removes it; a person decides in "
    "the review inbox."
)


def instruction_hold(
    line: str, text: str, kind: str, meta: Mapping[str, str] | None = None
) -> dict:
    """The plan item holding instruction-shaped text for review instead of saving it."""
    item = {
        "op": "hold",
        "line": line,
        "tier": line,
        "text": text,
        "reason": "instruction",
        "detail": f"Reads as an instruction ({kind}), not a fact: never saved by the learner, "
        "so it cannot reach a prompt; a person decides in the review inbox.",
    }
    return item | ({"meta": dict(meta)} if meta else {})


ASKED_DETAIL = "Asked to be remembered in this message: already held for review there."


def other_hold(
    line: str,
    text: str,
    person: str,
    asked: AskedOthers,
    meta: Mapping[str, str] | None = None,
) -> dict:
    """The plan item holding a fact about `person` the speaker asked to be remembered (the
    asker's own words are held once, by "remember that…", so they are only noted here)."""
    if asked.asked(text):
        return {"op": "known", "line": line, "text": text, "detail": ASKED_DETAIL}
    item = {
        "op": "hold",
        "line": line,
        "tier": line,
        "text": text,
        "reason": OTHER_PERSON,
        "detail": held_detail(person),
    }
    return item | ({"meta": dict(meta)} if meta else {})


_WHY = {
    "too_long": "Over the 500-character limit for a fact.",
    "empty": "No text after the keyword.",
    "not_known": "Does not quote one of the known facts exactly.",
    "limit": "More lines of this kind than one exchange may change.",
}


def _refuse(line: str, text: str, reason: str, detail: str) -> dict:
    return {"op": "refuse", "line": line, "text": text, "reason": reason, "detail": detail}
