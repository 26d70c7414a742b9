"""A person's memory controls: pause memory, and the topics bots must not remember; every change
recorded in the person's audit history.

The settings are the `PersonSettings` row of the person's console account (the account their
Person row links, else the account named like them; `settings_of`), read by the write
services through `memstore.rules.content` and by the learner, so a change applies from the next call.
The audit history is a file beside the person's memory, `users/<person>/controls.jsonl`, one
JSON object per change (who, when, what), appended and never rewritten, so a rebuild of the index
loses none of it. Front doors (the About me page, staff, `manage.py people`) call these services;
this module does not decide who may call them (`memstore.console.aboutme` does for the console).
"""

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from memstore.errors import InvalidName, InvalidTopic
from memstore.facts.files import file_open
from memstore.facts.paths import check_person, memory_root
from memstore.models import Person, PersonSettings
from memstore.rules.policy import normalise

AUDIT_FILE = "controls.jsonl"
MAX_TOPIC_CHARS = 80
MAX_TOPICS = 100


@dataclass(frozen=True, slots=True)
class Controls:
    """A person's controls as they stand."""

    person: str
    paused: bool
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ControlChange:
    """One recorded change of a person's controls."""

    at: str  # ISO 8601 UTC
    by: str
    via: str
    action: str  # pause | resume | exclude | include
    topic: str = ""


def settings_of(person) -> Q:
    """The `PersonSettings` row of a person (a name, or an `OuterRef` to one): the console account
    their registered Person links, else the account of that username that no Person links."""
    return Q(user__person__name=person) | Q(user__username=person, user__person__isnull=True)


def person_controls(*, person: str) -> Controls:
    """A person's pause switch and excluded topics (defaults when never set)."""
    row = PersonSettings.objects.filter(settings_of(check_person(person))).first()
    if row is None:
        return Controls(person=person, paused=False, topics=())
    return Controls(person=person, paused=row.paused, topics=tuple(row.excluded_topics or ()))


def memory_pause(*, person: str, by: str, via: str) -> Controls:
    """Pause memory: nothing new is learned from the person and bots may not save about them."""
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
    return Controls(person=person, paused=row.paused, topics=tuple(row.excluded_topics or ()))


def _audit_path(person: str) -> Path:
    return memory_root() / "users" / check_person(person) / AUDIT_FILE


def _audit(person: str, change: ControlChange) -> None:
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    record = {k: getattr(change, k) for k in _FIELDS} | {"at": stamp}
    path = _audit_path(person)
    # O_APPEND keeps concurrent records whole; the file is never rewritten.
    fd = file_open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    finally:
        os.close(fd)


_FIELDS = tuple(ControlChange.__dataclass_fields__)
