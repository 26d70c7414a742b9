"""`manage.py mcp --bot SLUG`: serve the MCP tools over stdio as one bot, for a local agent.

The same tools as /mcp (memoryconsole.mcp.tools); stdout carries only the protocol, so logging
goes to stderr. The bot's projects are read at each call, so a join takes effect at once.
"""

from django.core.management.base import BaseCommand, CommandError

from memoryconsole.mcp.tools import CALLER, server
from memstore.errors import UnknownBot
from memstore.registry.bots import bot_get


class Command(BaseCommand):
    help = "Serve the memory tools over MCP stdio, acting as one bot."

    def add_arguments(self, parser):
        parser.add_argument("--bot", required=True, help="The bot's slug (as registered).")

    def handle(self, *args, bot: str, **options):
        try:
            info = bot_get(slug=bot)
        except UnknownBot as exc:
            raise CommandError(str(exc)) from None
        CALLER.set((info.slug, None, None))
        server.run("stdio")
