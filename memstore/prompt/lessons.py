"""Lessons for agents: recurring lessons in a bot's own memory, proposed for its "About me" note.

Off by default (`settings.AGENT_LESSONS`: off | propose, for the workspace). When on,
`lessons_propose` looks at the bot's own memory for lessons (`type=learning` facts) that recur:
said at least LESSON_REPEATS times, counting the facts saying nearly the same thing (most of
their words shared; grouped whatever the order they are read in) and the times the lesson was
said again once stored (a verbatim repeat collapses into one fact, so a record counts it: a
save through any door that met the fact, `memstore.store.repeats`, and the learner's "already
known" proposals, which never reach the save). Each
recurring lesson not yet in the note becomes a line under "Lessons learned:", and the new note
text is recorded as a proposal (origin `lessons`, action `note`) in the bot's Proposals inbox,
with the facts as its evidence (each with the lesson line made from it, so erasing a fact
erases its line from the note: `memstore.privacy.derived`) and the note as it read then. Nothing changes the note until a
person who may edit the bot accepts it (`lessons_apply`, called by the console's decide); if the
note changed meanwhile, the proposal fails saying so and the next pass proposes afresh.

Does not: decide who may accept (the console checks the editor), or touch the lesson facts.
"""

import re
from dataclasses import dataclass

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from memstore.errors import EditConflict, InvalidFact, InvalidNote
from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact, stored_from_row
from memstore.index import index_sync
from memstore.models import Fact, LearningEvent, LessonRepeat, Proposal
from memstore.prompt.notes import note_read, note_save
from memstore.upkeep.proposals import proposal_record

LESSON_REPEATS = 3  # facts saying the same lesson before it is proposed
SIMILAR = 0.75  # share of the shorter fact's content words the other must hold too
MIN_WORDS = 3  # content words a lesson needs before it can match another
MET_AGAIN_MAX = 5_000  # the newest records of each kind of repeat read
HEADING = "Lessons learned:"
ORIGIN, ACTION = "lessons", "note"
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "at",
        "by",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "when",
        "then",
        "than",
        "as",
        "do",
        "does",
        "did",
        "not",
        "no",
        "always",
        "never",
        "should",
        "must",
    ]
)


@dataclass(frozen=True, slots=True)
class Lesson:
    """A lesson that recurred: its wording (the newest fact's) and the facts that said it."""

    text: str
    facts: list[StoredFact]
    repeats: int = 0  # times it was said again once stored (not a fact of its own)

    @property
    def times(self) -> int:
        """How many times the lesson was said: its facts, and its repeats."""
        return len(self.facts) + self.repeats


def lessons_on() -> bool:
    """Whether the workspace proposes lessons for agents' About me notes."""
    return settings.AGENT_LESSONS == "propose"


def _stem(word: str) -> str:
    # Enough to hear "deploying", "deploys" and "deployed" as one word; not a real stemmer.
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word


def _words(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP)


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    if min(len(a), len(b)) < MIN_WORDS:
        return a == b and bool(a)
    return len(a & b) / min(len(a), len(b)) >= SIMILAR


def lessons_recurring(*, bot: str) -> list[Lesson]:
    """The lessons in the bot's own memory said at least LESSON_REPEATS times, newest first.
    Facts saying nearly the same thing group whatever order they are read in (a fact like
    either of two others joins them both: groups are the connected parts of "says nearly the
    same"), and a lesson said again once stored (a save that met it, or the learner proposing
    it when it was known already) counts each time."""
    scope = Scope("bot", bot)
    index_sync(scopes=[scope])
    rows = Fact.objects.filter(scope_key=str(scope)).filter(Q(meta__type="learning"))
    facts = sorted(
        (stored_from_row(r) for r in rows.annotate(file_path=F("file__path"))),
        key=lambda f: (f.day, f.file, f.position),
        reverse=True,
    )
    words = [_words(fact.body) for fact in facts]
    groups = _groups(words)
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    repeats = dict.fromkeys(range(len(groups)), 0)
    at_fact = {fact.fact_id: i for i, fact in enumerate(facts)}
    for fact_id in _saved_again(bot):
        if fact_id in at_fact:  # a repeat of a fact since forgotten no longer counts
            repeats[group_of[at_fact[fact_id]]] += 1
    for text in _met_again(bot):
        heard = _words(text)
        at = next((i for i, seen in enumerate(words) if _similar(seen, heard)), None)
        if at is not None:
            repeats[group_of[at]] += 1
    lessons = [
        Lesson(text=facts[members[0]].body, facts=[facts[i] for i in members], repeats=repeats[g])
        for g, members in enumerate(groups)
    ]
    return [lesson for lesson in lessons if lesson.times >= LESSON_REPEATS]


def _groups(words: list[frozenset[str]]) -> list[list[int]]:
    # Union-find over every pair: the result does not depend on the order facts came in.
    parent = list(range(len(words)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(words)):
        for j in range(i + 1, len(words)):
            if _similar(words[i], words[j]):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(words)):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values())  # each in the facts' order (newest first), by its newest


def _met_again(bot: str) -> list[str]:
    # What the learner proposed for this bot and found known already (a verbatim repeat
    # collapses into the fact it repeats, so only this record still counts it); the newest.
    rows = LearningEvent.objects.filter(bot=bot, kind="skipped", reason="known")
    return list(rows.order_by("-at").values_list("text", flat=True)[:MET_AGAIN_MAX])


def _saved_again(bot: str) -> list[str]:
    # The facts of the bot's own memory a save met again as a lesson (any door), the newest.
    rows = LessonRepeat.objects.filter(bot=bot, scope_key=str(Scope("bot", bot)))
    return list(rows.order_by("-at").values_list("fact_id", flat=True)[:MET_AGAIN_MAX])


def lessons_note(current: str, lessons: list[Lesson]) -> tuple[str, list[Lesson]]:
    """The note with the lessons not in it yet added under the heading (within the note's size
    limit: lessons that do not fit are left for later), and the lessons added."""
    have = current.lower()
    new = [lesson for lesson in lessons if lesson.text.lower() not in have]
    text = current.rstrip()
    added: list[Lesson] = []
    for lesson in new:
        lead = "" if HEADING in text else (("\n\n" if text else "") + HEADING)
        candidate = f"{text}{lead}\n- {lesson.text}"
        if len(candidate) > settings.NOTE_MAX_CHARS:
            continue
        text, added = candidate, [*added, lesson]
    return text, added


def lessons_propose(*, bot: str) -> Proposal | None:
    """Record a proposal to add the bot's recurring lessons to its About me note (once per
    change), or None when lessons are off or there is nothing new to add."""
    if not lessons_on():
        return None
    current = note_read(kind="me", name=bot).text
    text, added = lessons_note(current, lessons_recurring(bot=bot))
    if not added:
        return None
    evidence = [fact for lesson in added for fact in lesson.facts]
    proposal, _ = proposal_record(
        origin=ORIGIN,
        action=ACTION,
        bot=bot,
        evidence=evidence,
        text=text,
        reason=f"{len(added)} lesson{'s' if len(added) != 1 else ''} recurred in {bot}'s own "
        f"memory ({', '.join(str(lesson.times) for lesson in added)} times): add "
        f"{'them' if len(added) != 1 else 'it'} to its About me note?",
        verdict=current,  # the note as it read when proposed
        made={fact.fact_id: lesson.text for lesson in added for fact in lesson.facts},
    )
    return proposal


def lessons_apply(*, proposal: Proposal) -> Proposal:
    """Write an accepted lessons proposal's note (the caller checked who accepts); a note
    changed since it was proposed is not overwritten: the proposal fails, saying so."""
    if proposal.origin != ORIGIN or proposal.status != Proposal.PROPOSED:
        raise InvalidFact(f"This proposal was already {proposal.status}.")
    try:
        note_save(kind="me", name=proposal.bot, text=proposal.text, expected=proposal.verdict)
        status, result = Proposal.APPLIED, {"note": "about-me"}
    except EditConflict:
        status = Proposal.FAILED
        result = {
            "error": "The About me note changed since this was proposed; the next pass "
            "proposes the lessons again, on the note as it reads now."
        }
    except InvalidNote as error:
        status, result = Proposal.FAILED, {"error": error.message}
    Proposal.objects.filter(pk=proposal.pk).update(
        status=status, result=result, decided_at=timezone.now()
    )
    proposal.status, proposal.result = status, result
    return proposal
