"""What a bot's prompt memory section would hold in a chosen room, so people see what bots see.

The section itself is built by `memstore.prompt.answer.prompt_answer`, as the API builds it
(the always-on notes, then the blocks; within the time budget, or as of a date); this module only builds the room's Context for a person's choice, and keeps the privacy
rule: a direct room shows that person's user memory, so only they (or staff) may preview it.
"""

from dataclasses import dataclass
from datetime import date

from django.db.models import Count

from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.facts.paths import Scope, all_scopes, memory_root
from memstore.models import Fact, ProjectMember
from memstore.prompt.answer import PromptAnswer, prompt_answer
from memstore.registry.people import person_for_bot
from memstore.rooms.access import ROOM_KINDS
from memstore.rooms.context import context_open
from memstore.store.selectors import legacy_rooms_of

PREVIEW_ROOM = "console-preview"


@dataclass(frozen=True, slots=True)
class PreviewChoices:
    """What the person can pick for a preview of this bot."""

    kinds: tuple[str, ...]
    people: list[str]
    rooms: list[str]  # legacy rooms this bot wrote in (a group room may be one of them)
    projects: list[str]  # projects the bot joined
    private: frozenset[str] = frozenset()  # which of `rooms` are private conversations


def preview_choices(*, bot: str, viewer: Viewer) -> PreviewChoices:
    """Room kinds, people (the viewer, or everyone with user memory for staff), rooms, projects."""
    people = [viewer.person]
    if viewer.staff:
        people += [s.name for s in all_scopes(memory_root()) if s.kind == "user"]
    return PreviewChoices(
        kinds=ROOM_KINDS,
        people=sorted(set(people)),
        rooms=[r for r in legacy_rooms_of(bot) if viewer.may_see(Scope("room", r))],
        projects=list(
            ProjectMember.objects.filter(bot__slug=bot).values_list("project", flat=True)
        ),
        private=viewer.private_conversations,
    )


def prompt_preview(
    *,
    bot: str,
    viewer: Viewer,
    kind: str,
    person: str,
    room: str,
    projects: list[str],
    as_of: date | None = None,
) -> PromptAnswer:
    """What the bot would get in that room (now, or at the end of `as_of`). NotAllowed for
    another person's direct room unless staff; PersonUnknown or PersonNotLinked, as the API
    answers the bot (403), for a direct room with a person the bot does not act for."""
    person = person or viewer.person
    if kind == "direct" and person != viewer.person and not viewer.staff:
        raise NotAllowed("Only that person (or staff) may preview their direct room.")
    if kind == "group" and not viewer.may_see(Scope("room", room or PREVIEW_ROOM)):
        raise NotAllowed(
            f"Room {room!r} is a private conversation: only staff may preview it here."
        )
    ctx = context_open(
        bot=bot,
        room_id=room or PREVIEW_ROOM,
        room_kind=kind,
        person=person_for_bot(bot=bot, person=person) if kind == "direct" else None,
        projects=projects,
    )
    return prompt_answer(ctx=ctx, as_of=as_of)


def hidden_counts(*, scopes: list[str]) -> dict[str, int]:
    """How many hidden facts each scope holds (merged across shards): a preview says they were
    left out, since hidden facts never go into a prompt."""
    rows = (
        Fact.objects.filter(scope_key__in=scopes, visibility="hidden")
        .values("scope_key")
        .annotate(n=Count("fact_id", distinct=True))
    )
    return {row["scope_key"]: row["n"] for row in rows}
