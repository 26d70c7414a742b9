"""A person's memory controls: pause memory, and the topics bots must not remember; every change
recorded in the person's audit history.

The settings are the `PersonSettings` row of the person's console account (the account their
Person row links, else the account named like them). `controls_read` is the one
reader: the write path's content check (`memstore.rules.content`), what is withheld from a read
(`memstore.rules.withheld`), the learner and the console all call it, so a change applies from
the next call. `Controls.topic_in` is the one test of whether a text touches a person's topics.
The audit history is a file beside the person's memory, `users/<person>/controls.jsonl`, one
JSON object per change (who, when, what), appended and never rewritten, so a rebuild of the index
loses none of it. Front doors (the About me page, staff, `manage.py people`) call these services;
this module does not decide who may call them (`memstore.console.aboutme` does for the console).
"""

import json
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from memstore.errors import InvalidName, InvalidTopic, MemoryVolumeFull, MemoryVolumeReadOnly
from memstore.facts.files import file_open
from memstore.facts.paths import check_person, memory_root
from memstore.facts.volume import volume_errors
from memstore.models import Person, PersonSettings
from memstore.rules.policy import excluded_topic, normalise

logger = logging.getLogger(__name__)

AUDIT_FILE = "controls.jsonl"
MAX_TOPIC_CHARS = 80
MAX_TOPICS = 100


_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Controls:
    """A person's controls as they stand (defaults: memory on, no topic excluded)."""

    person: str
    paused: bool = False
    topics: tuple[str, ...] = ()

    def topic_in(self, text: str, *, about: bool) -> str | None:
        """The excluded topic this text touches, or None. `about`: the text is about this
        person already (their user memory, or a save in a room they are in); otherwise it
        touches a topic only when it also names them ("Sam's salary band is L5")."""
        if not self.topics or not (about or names(text, self.person)):
            return None
        return _topic_in(text, self.topics)


def names(text: str, person: str) -> bool:
    """Whether the text names the person: their name's words, side by side, in any case
    ("Sam's" and "sam" name sam; "Samantha" does not)."""
    wanted = words_of(person)
    words = words_of(text)
    size = len(wanted)
    return bool(size) and any(words[i : i + size] == wanted for i in range(len(words) - size + 1))


@lru_cache(maxsize=32_768)
def words_of(text: str) -> tuple[str, ...]:
    """The text's words as a name is looked for in it: normalised, lower-cased (remembered)."""
    return tuple(_WORD.findall(normalise(text).lower()))


@lru_cache(maxsize=32_768)
def _topic_in(text: str, topics: tuple[str, ...]) -> str | None:
    # Cached: a prompt checks the same few hundred texts on every build.
    return excluded_topic(text, list(topics))


@dataclass(frozen=True, slots=True)
class ControlChange:
    """One recorded change of a person's controls."""

    at: str  # ISO 8601 UTC
    by: str
    via: str
    action: str  # pause | resume | exclude | include
    topic: str = ""


def controls_sql(*, people: Iterable[str] = (), with_topics: bool = False) -> tuple[str, list]:
    """The statement `controls_read` runs, as one JSON value (so a caller can fold it into a
    statement of its own, as recall does) and its parameters; parse it with `controls_parse`.
    It selects the settings of these people (of the console account their Person links, else
    of the account of that username that no Person links) and, with `with_topics`, everyone's
    who excluded a topic or paused memory (the gate refuses a fact that names either)."""
    names = [check_person(p) for p in dict.fromkeys(people) if p]
    return _CONTROLS_SQL.format(**_tables()), [names, names, with_topics]


def controls_parse(value: list | str | None, *, people: Iterable[str] = ()) -> dict[str, Controls]:
    """The controls `controls_sql` selected, keyed by name (registered, else the username), with
    defaults for each of `people` who never set any."""
    rows = json.loads(value) if isinstance(value, str) else value or []
    found: dict[str, Controls] = {}
    for who, paused, topics in sorted(rows, key=lambda row: row[0]):
        # Two accounts can answer to one name (a linked one and a namesake): both count.
        before = found.get(who, Controls(who))
        found[who] = Controls(
            person=who,
            paused=before.paused or bool(paused),
            topics=tuple(dict.fromkeys([*before.topics, *(str(t) for t in topics or ())])),
        )
    for name in people:
        if name:
            found.setdefault(check_person(name), Controls(check_person(name)))
    return found


def controls_read(*, people: Iterable[str] = (), with_topics: bool = False) -> dict[str, Controls]:
    """The one reader of people's controls: these people's (defaults for one who never set
    any), and with `with_topics` everyone's who excluded a topic or paused, keyed by name. One
    query."""
    people = list(people)
    sql, params = controls_sql(people=people, with_topics=with_topics)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        value = cursor.fetchone()[0]
    return controls_parse(value, people=people)


_CONTROLS_SQL = (
    "SELECT coalesce(json_agg(json_build_array(coalesce(p.name, u.username), s.paused,"
    " s.excluded_topics)), '[]') FROM {settings} s JOIN {users} u ON u.id = s.user_id"
    " LEFT JOIN {people} p ON p.user_id = u.id"
    " WHERE p.name = ANY(%s) OR (u.username = ANY(%s) AND p.id IS NULL)"
    " OR (%s AND (s.excluded_topics <> '[]'::jsonb OR s.paused))"
)


@lru_cache(maxsize=1)
def _tables() -> dict[str, str]:
    return {
        "settings": PersonSettings._meta.db_table,
        "users": get_user_model()._meta.db_table,
        "people": Person._meta.db_table,
    }


def person_controls(*, person: str) -> Controls:
    """One person's controls (`controls_read` for one)."""
    return controls_read(people=[person])[check_person(person)]


def memory_pause(*, person: str, by: str, via: str) -> Controls:
    """Pause memory: nothing new is learned from the person's messages, and their user memory
    and private facts are left out of prompts and recall; an explicit save still works."""
    return _set_paused(person=person, paused=True, by=by, via=via)


def memory_resume(*, person: str, by: str, via: str) -> Controls:
    """Resume memory after a pause."""
    return _set_paused(person=person, paused=False, by=by, via=via)


def topic_exclude(*, person: str, topic: str, by: str, via: str) -> Controls:
    """Add a topic bots must not remember about the person (InvalidTopic if blank or too long);
    adding one already there (in any case) changes nothing."""
    cleaned = " ".join(normalise(topic).split())
    if not cleaned:
        raise InvalidTopic("Write the topic to exclude, e.g. health.")
    if len(cleaned) > MAX_TOPIC_CHARS:
        raise InvalidTopic(f"A topic is at most {MAX_TOPIC_CHARS} characters.")
    with transaction.atomic():
        row = _row(person)
        topics = list(row.excluded_topics or ())
        if cleaned.lower() in {t.lower() for t in topics}:
            return _controls(person, row)
        if len(topics) >= MAX_TOPICS:
            raise InvalidTopic(f"At most {MAX_TOPICS} topics can be excluded.")
        row.excluded_topics = [*topics, cleaned.lower()]
        row.save(update_fields=["excluded_topics"])
    _audit(person, ControlChange(at="", by=by, via=via, action="exclude", topic=cleaned.lower()))
    return _controls(person, row)


def topic_include(*, person: str, topic: str, by: str, via: str) -> Controls:
    """Take a topic off the excluded list (any case); removing one not there changes nothing."""
    wanted = " ".join(normalise(topic).split()).lower()
    with transaction.atomic():
        row = _row(person)
        topics = list(row.excluded_topics or ())
        kept = [t for t in topics if t.lower() != wanted]
        if kept == topics:
            return _controls(person, row)
        row.excluded_topics = kept
        row.save(update_fields=["excluded_topics"])
    _audit(person, ControlChange(at="", by=by, via=via, action="include", topic=wanted))
    return _controls(person, row)


def controls_history(*, person: str) -> list[ControlChange]:
    """Every recorded change of the person's controls, newest first."""
    try:
        raw = _audit_path(person).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    changes = []
    for line in raw.splitlines():
        try:
            record = json.loads(line)
            changes.append(ControlChange(**{k: str(record.get(k, "")) for k in _FIELDS}))
        except (ValueError, TypeError, AttributeError):
            continue
    return changes[::-1]


def _set_paused(*, person: str, paused: bool, by: str, via: str) -> Controls:
    with transaction.atomic():
        row = _row(person)
        if row.paused == paused:
            return _controls(person, row)
        row.paused = paused
        row.save(update_fields=["paused"])
    _audit(person, ControlChange(at="", by=by, via=via, action="pause" if paused else "resume"))
    return _controls(person, row)


def _row(person: str) -> PersonSettings:
    # Locked for the read-change-write, so two concurrent topic edits both land.
    name = check_person(person)
    linked = Person.objects.filter(name=name, user__isnull=False).values_list("user", flat=True)
    users = get_user_model().objects
    user = (
        users.filter(pk__in=linked).first()
        or users.filter(username=name, person__isnull=True).first()
    )
    if user is None:
        raise InvalidName(
            f"{person!r} has no console account, so there are no memory controls to set."
        )
    PersonSettings.objects.get_or_create(user=user)
    return PersonSettings.objects.select_for_update().get(user=user)


def _controls(person: str, row: PersonSettings) -> Controls:
    return Controls(
        person=person, paused=row.paused, topics=tuple(str(t) for t in row.excluded_topics or ())
    )


def _audit_path(person: str) -> Path:
    return memory_root() / "users" / check_person(person) / AUDIT_FILE


def _audit(person: str, change: ControlChange) -> None:
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    record = {k: getattr(change, k) for k in _FIELDS} | {"at": stamp}
    path = _audit_path(person)
    # O_APPEND keeps concurrent records whole; the file is never rewritten. A full or
    # read-only volume must not undo a person's pause or exclusion (already in force): the
    # change stands, and the missing record is logged.
    try:
        with volume_errors(path):
            fd = file_open(path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
            finally:
                os.close(fd)
    except (MemoryVolumeFull, MemoryVolumeReadOnly) as error:
        logger.warning(
            "controls of %s changed (%s) but not recorded: %s", person, change.action, error.message
        )


_FIELDS = tuple(ControlChange.__dataclass_fields__)
