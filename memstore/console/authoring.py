"""Adding a fact in the console, and editing every field of one (text, tier, date, type,
visibility, importance), as the person (`by=<username>`, `via=console`), through the services so
the API's rules hold (secrets never in shared memory, the length limit, valid metadata).

An edit that keeps the fact in its file changes its line in place (`fact_edit`); one that moves
it (another tier, or a log date in another month) checks the new line first, then forgets the
old line and remembers the new one, both in the shard's history. A refusal is recorded in the
failure log by the services, like every write.

Does not: decide wording or parse forms (the console does), or write files itself.
"""

from dataclasses import dataclass
from datetime import date

from memstore.console.facts import FactRow, bot_tabs, console_fact_get, rows_of, shard_of_file
from memstore.console.viewer import Viewer
from memstore.errors import EditConflict, FactNotFound, MemstoreError, NotAllowed
from memstore.facts.markdown import make_fact
from memstore.facts.paths import Scope, locate
from memstore.facts.records import StoredFact
from memstore.facts.validity import review_of, until_of
from memstore.rules.content import content_check
from memstore.store.changes import meta_claimed
from memstore.store.services import fact_edit, fact_forget, fact_remember
from memstore.vocabulary import Tier

_TAGS = {"note": "note", "episode": "episode"}


@dataclass(frozen=True, slots=True)
class FactFields:
    """Every field a person sets on a fact. None: not given (an edit keeps what the fact has,
    a new fact gets the default); "" for importance, or the default type or visibility: the
    key is dropped from the line."""

    text: str
    tier: Tier | None = None
    day: date | None = None
    type: str | None = None
    visibility: str | None = None
    importance: float | str | None = None
    until: date | str | None = None  # "": drop it
    review: date | str | None = None

    def meta(self) -> dict[str, object | None]:
        """The metadata these fields change (a None value drops the key)."""
        changes: dict[str, object | None] = {}
        if self.type is not None:
            changes["type"] = None if self.type in ("", "fact") else self.type
        if self.visibility is not None:
            changes["visibility"] = None if self.visibility in ("", "context") else self.visibility
        if self.importance is not None:
            changes["importance"] = None if self.importance == "" else self.importance
        for key in ("until", "review"):
            value = getattr(self, key)
            if value is not None:
                changes[key] = value.isoformat() if isinstance(value, date) else value or None
        return changes


def _set(meta: dict[str, object | None]) -> dict[str, object]:
    return {k: v for k, v in meta.items() if v is not None}


def console_fact_add(*, viewer: Viewer, bot: str, scope: Scope, fields: FactFields) -> FactRow:
    """Save a new fact in the bot's shard of a scope the person may see."""
    if not viewer.may_see(scope):
        raise NotAllowed("That is another person's user memory.")
    viewer.check_editor(bot)
    stored = fact_remember(
        shard=scope.shard(bot),
        text=fields.text,
        tier=fields.tier or "log",
        day=fields.day,
        meta=_set(fields.meta()),
        by=viewer.person,
        via="console",
    )
    return rows_of([stored], [stored.fact_id])[0]  # who wrote it as the line says


def console_fact_update(
    *, viewer: Viewer, file: str, fact_id: str, expected_text: str, fields: FactFields
) -> FactRow:
    """Change every field of a fact; EditConflict (with the current text) if it changed."""
    shard = shard_of_file(viewer, file)
    viewer.check_editor(shard.bot)
    location = locate(file)
    try:
        current = console_fact_get(viewer=viewer, file=file, fact_id=fact_id).fact
    except FactNotFound:
        # Reworded by hand (a new wording is a new fact) or deleted meanwhile.
        raise EditConflict(
            "This fact was removed by someone else.", detail={"current": None, "fact_id": fact_id}
        ) from None
    tier_now = "profile" if location.tier_file == "profile" else (_tag(current.text) or "log")
    day = fields.day or current.day
    tier = fields.tier or tier_now
    target = shard.file_rel(tier_file="profile" if tier == "profile" else "log", day=day)
    if tier == tier_now and target == file:
        stored = fact_edit(
            shard=shard,
            fact_id=fact_id,
            text=fields.text,
            expected_text=expected_text,
            day=fields.day,
            meta=fields.meta(),
            by=viewer.person,
            via="console",
        )
    else:
        stored = _move(viewer, current, expected_text, fields, tier, day)
    return rows_of([stored], [stored.fact_id])[0]  # who wrote it as the line says


def _tag(text: str) -> str | None:
    for tag in _TAGS:
        if text.startswith(f"[{tag}]"):
            return tag
    return None


def _move(viewer: Viewer, current, expected_text: str, fields: FactFields, tier: Tier, day: date):
    if current.text != expected_text:
        raise EditConflict(
            "This fact was changed by someone else; here is what it says now.",
            detail={"current": current.text, "fact_id": current.fact_id},
        )
    shard = shard_of_file(viewer, current.file)
    meta = _set(meta_claimed(current.meta, by=viewer.person, via="console") | fields.meta())
    # Check the new line before the old one goes, so a refusal leaves everything as it was.
    line = make_fact(text=fields.text, day=day, tag=_TAGS.get(tier), meta=meta)
    content_check(shard=shard, fact=line, person=None, via="console")
    fact_forget(shards=[shard], fact_id=current.fact_id, by=viewer.person, via="console")
    return fact_remember(
        shard=shard,
        text=fields.text,
        tier=tier,
        day=day,
        meta=meta,
        by=viewer.person,
        via="console",
    )


def fact_fields_of(fact: StoredFact) -> FactFields:
    """The fields of a stored fact, as the edit form starts from them."""
    location = locate(fact.file)
    profile = location is not None and location.tier_file == "profile"
    importance = fact.meta.get("importance")
    try:
        value = float(importance) if importance is not None else None
    except ValueError:
        value = None
    return FactFields(
        text=fact.body,
        tier="profile" if profile else (_tag(fact.text) or "log"),
        day=fact.day,
        type=fact.meta.get("type", "fact"),
        visibility=fact.meta.get("visibility", "context"),
        importance=value,
        until=_day_or_none(until_of(fact.meta)),
        review=_day_or_none(review_of(fact.meta)),
    )


def _day_or_none(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def add_scopes(*, bot: str, viewer: Viewer) -> list[Scope]:
    """Where a person may add a fact for this bot: its own memory, their own user memory (any
    person's the bot knows, for staff), and the bot's projects."""
    tabs = {t.name: t for t in bot_tabs(bot=bot, viewer=viewer, counts=False)}
    people = [s for s in tabs["people"].scopes if viewer.staff]
    mine = Scope("user", viewer.person) if _valid_person(viewer.person) else None
    scopes = [Scope("bot", bot), *([mine] if mine else []), *people, *tabs["projects"].scopes]
    return list(dict.fromkeys(scopes))


def _valid_person(name: str) -> bool:
    try:
        Scope("user", name)
    except MemstoreError:
        return False
    return True
