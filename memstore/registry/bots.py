"""The registry of bots: create them (an app too), join and leave projects, note that a bot
talks in groups, set whether it keeps a private memory, and read a person's excluded topics.

These rows are configuration, not index (files never mention them). Tokens live in
`memstore.registry.tokens`; what a bot may read and write is `memstore.rooms.access`.
"""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Count, Q

from memstore.errors import InvalidName, UnknownBot
from memstore.facts.paths import check_slug
from memstore.invocation import manage_command
from memstore.models import Bot, ProjectMember
from memstore.registry.grants import READ_WRITE, membership_clean


@dataclass(frozen=True, slots=True)
class BotInfo:
    """A registered bot, its projects and how many tokens it can use."""

    slug: str
    display_name: str
    in_groups: bool
    projects: tuple[str, ...]
    active_tokens: int
    app: bool = False
    private_memory: bool = False
    read_only: tuple[str, ...] = ()  # the projects it may read, not write


def bot_create(*, slug: str, display_name: str = "", app: bool = False) -> BotInfo:
    """Register a bot (`app`: an app whose token writes workspace memory, scope server); raises
    InvalidName if the slug is taken or not allowed."""
    check_slug(slug)
    try:
        with transaction.atomic():
            Bot.objects.create(slug=slug, display_name=display_name[:120], app=app)
    except IntegrityError:
        raise InvalidName(f"Bot {slug!r} already exists.") from None
    return bot_get(slug=slug)


def bot_get(*, slug: str) -> BotInfo:
    """One registered bot; raises UnknownBot."""
    infos = _infos(Bot.objects.filter(slug=slug))
    if not infos:
        raise UnknownBot(
            f"No bot {slug!r} is registered; create it with `{manage_command('bots', 'create', slug)}`."
        )
    return infos[0]


def bots_registered() -> list[BotInfo]:
    """Every registered bot, by slug."""
    return _infos(Bot.objects.all())


def project_join(*, bot: str, project: str, access: str = READ_WRITE) -> bool:
    """Let a bot read (`access` read) or read and write (read_write) a project's memory; a bot
    already in the project gets this access. False if it had already joined."""
    check_slug(project, "project")
    access = membership_clean(access)
    row = bot_row(slug=bot)
    with transaction.atomic():
        member, created = ProjectMember.objects.get_or_create(
            bot=row, project=project, defaults={"access": access}
        )
        if member.access != access:
            member.access = access
            member.save(update_fields=["access"])  # a trigger moves the auth generation
    return created


def project_leave(*, bot: str, project: str) -> bool:
    """Take a bot off a project (its shard stays on disk); False if it was not a member."""
    row = bot_row(slug=bot)
    deleted, _ = ProjectMember.objects.filter(bot=row, project=project).delete()
    return bool(deleted)


def bot_mark_in_groups(*, bot: str) -> None:
    """Remember that this bot talks in group rooms (its prompt then calls its memory team-wide)."""
    Bot.objects.filter(slug=bot, in_groups=False).update(in_groups=True)


def bot_private_set(*, bot: str, private: bool) -> BotInfo:
    """Set whether a bot keeps a private memory: its own memory is then read only in its own
    rooms (direct, routine, bot and event rooms, and group rooms it opened), never in another
    group room, and is not team-wide; its shards on disk do not move."""
    row = bot_row(slug=bot)
    if row.private_memory != private:
        row.private_memory = private
        row.save(update_fields=["private_memory"])
    return bot_get(slug=bot)


def bot_keeps_private(*, slug: str) -> bool:
    """Whether this bot keeps a private memory (False for a bot that is not registered)."""
    return Bot.objects.filter(slug=slug, private_memory=True).exists()


def bot_row(*, slug: str) -> Bot:
    """The registry row of a bot (for other registry modules); raises UnknownBot."""
    row = Bot.objects.filter(slug=slug).first()
    if row is None:
        raise UnknownBot(
            f"No bot {slug!r} is registered; create it with `{manage_command('bots', 'create', slug)}`."
        )
    return row


def _infos(rows) -> list[BotInfo]:
    rows = rows.annotate(
        active_tokens=Count("tokens", filter=Q(tokens__revoked_at__isnull=True), distinct=True)
    ).order_by("slug")
    projects: dict[int, list[str]] = {}
    read_only: dict[int, list[str]] = {}
    for bot_id, project, access in ProjectMember.objects.filter(bot__in=rows).values_list(
        "bot_id", "project", "access"
    ):
        projects.setdefault(bot_id, []).append(project)
        if access != READ_WRITE:
            read_only.setdefault(bot_id, []).append(project)
    return [
        BotInfo(
            slug=row.slug,
            display_name=row.display_name,
            in_groups=row.in_groups,
            projects=tuple(sorted(projects.get(row.pk, []))),
            active_tokens=row.active_tokens,
            app=row.app,
            private_memory=row.private_memory,
            read_only=tuple(sorted(read_only.get(row.pk, []))),
        )
        for row in rows
    ]
