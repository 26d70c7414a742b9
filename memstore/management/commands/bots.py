"""manage.py bots: register bots, issue and revoke their API tokens, manage project membership.

bots create SLUG [--name NAME] [--app]
                                   register a bot (--app: an app, e.g. a CRM sync, whose token
                                   writes workspace memory, scope server)
bots private SLUG on|off           whether the bot keeps a private memory (read only in its
                                   own rooms, never in another group room)
bots token SLUG [--name NAME] [--scopes memory:read[,memory:write]]
                                   issue a token (printed once; only its hash is kept) with
                                   these grants (both by default; memory:read alone: it may
                                   read, every write is refused with 403 missing_grant)
bots tokens SLUG                   list a bot's tokens (prefix, grants, name, created, last used)
bots revoke PREFIX                 revoke the token starting with PREFIX
bots join SLUG PROJECT [--access read|read_write]
                                   let the bot read and write the project's memory (read: only
                                   read it); joining again changes the access
bots leave SLUG PROJECT            take it off the project (its memory stays on disk)
bots list                          every bot with its projects and active tokens
"""

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.invocation import manage_command
from memstore.registry.bots import (
    bot_create,
    bot_private_set,
    bots_registered,
    project_join,
    project_leave,
)
from memstore.registry.grants import READ_WRITE, grants_clean
from memstore.registry.tokens import token_create, token_revoke, tokens_list
from memstore.vocabulary import GRANTS, MEMBERSHIPS


class Command(BaseCommand):
    help = "Register bots, issue and revoke their API tokens, and manage project membership."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="register a bot")
        create.add_argument("slug")
        create.add_argument("--name", default="", help="display name")
        create.add_argument(
            "--app", action="store_true", help="an app: its token writes workspace memory"
        )
        private = sub.add_parser("private", help="keep (on) or share (off) the bot's own memory")
        private.add_argument("slug")
        private.add_argument("state", choices=("on", "off"))
        token = sub.add_parser("token", help="issue an API token (printed once)")
        token.add_argument("slug")
        token.add_argument("--name", default="", help="what the token is for")
        token.add_argument(
            "--scopes",
            default=",".join(GRANTS),
            help=f"grants, comma-separated: {', '.join(GRANTS)} (default: both)",
        )
        tokens = sub.add_parser("tokens", help="list a bot's tokens")
        tokens.add_argument("slug")
        revoke = sub.add_parser("revoke", help="revoke a token by its prefix")
        revoke.add_argument("prefix")
        for name, text in (("join", "join a project"), ("leave", "leave a project")):
            member = sub.add_parser(name, help=text)
            member.add_argument("slug")
            member.add_argument("project")
            if name == "join":
                member.add_argument(
                    "--access",
                    choices=MEMBERSHIPS,
                    default=READ_WRITE,
                    help="read: read the project's memory only (default: read_write)",
                )
        sub.add_parser("list", help="every bot with its projects")

    def handle(self, *args, action: str, **options):
        try:
            getattr(self, f"do_{action}")(**options)
        except MemstoreError as exc:
            raise CommandError(exc.message) from None

    def do_create(self, *, slug: str, name: str, app: bool = False, **_):
        bot = bot_create(slug=slug, display_name=name, app=app)
        what = "app" if bot.app else "bot"
        self.stdout.write(
            f"Created {what} {bot.slug}. Next: {manage_command('bots', 'token', bot.slug)}"
        )

    def do_private(self, *, slug: str, state: str, **_):
        bot = bot_private_set(bot=slug, private=state == "on")
        self.stdout.write(
            f"Bot {slug} keeps a private memory: read only in its own rooms, never in another "
            "group room."
            if bot.private_memory
            else f"Bot {slug}'s own memory is read in every room it talks in."
        )

    def do_token(self, *, slug: str, name: str, scopes: str = ",".join(GRANTS), **_):
        new = token_create(bot=slug, name=name, scopes=grants_clean(scopes))
        self.stderr.write(
            f"Token {new.info.prefix}… for bot {slug} ({' '.join(new.info.scopes)}). "
            "It is shown once; store it now:"
        )
        self.stdout.write(new.token)

    def do_tokens(self, *, slug: str, **_):
        rows = tokens_list(bot=slug)
        if not rows:
            self.stdout.write(f"Bot {slug} has no tokens.")
        for t in rows:
            state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "active"
            used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never"
            self.stdout.write(
                f"{t.prefix}  {state:<24} {' '.join(t.scopes):<25} created {t.created_at:%Y-%m-%d %H:%M}  "
                f"last used {used}  {t.name}".rstrip()
            )

    def do_revoke(self, *, prefix: str, **_):
        info = token_revoke(prefix=prefix)
        self.stdout.write(f"Revoked token {info.prefix}… of bot {info.bot}.")

    def do_join(self, *, slug: str, project: str, access: str = READ_WRITE, **_):
        created = project_join(bot=slug, project=project, access=access)
        self.stdout.write(
            f"Bot {slug} {'joined' if created else 'was already in'} project {project} ({access})."
        )

    def do_leave(self, *, slug: str, project: str, **_):
        left = project_leave(bot=slug, project=project)
        self.stdout.write(
            f"Bot {slug} {'left' if left else 'was not in'} project {project}"
            + (" (its memory there stays on disk)." if left else ".")
        )

    def do_list(self, **_):
        bots = bots_registered()
        if not bots:
            self.stdout.write(
                f"No bots yet. Create one: {manage_command('bots', 'create', 'SLUG')}"
            )
        for bot in bots:
            projects = (
                ", ".join(p + (" (read)" if p in bot.read_only else "") for p in bot.projects)
                or "no projects"
            )
            groups = "  in groups" if bot.in_groups else ""
            groups += "  app" if bot.app else ""
            groups += "  private memory" if bot.private_memory else ""
            name = f" ({bot.display_name})" if bot.display_name else ""
            self.stdout.write(
                f"{bot.slug}{name}  {projects}  {bot.active_tokens} active token(s){groups}"
            )
