"""Who is calling and from where: the bearer token names the bot, the context headers the room.

A token acts only as its own bot: the bot's slug comes from the token, never from the request.
"""

from django.http import HttpRequest
from ninja.security import HttpBearer

from memoryconsole.api.schemas import ContextHeaders
from memstore.access import Context
from memstore.actions import call_context
from memstore.tokens import Caller, token_verify


class BotToken(HttpBearer):
    """`Authorization: Bearer mct_…`; request.auth becomes the Caller (bot and its projects)."""

    openapi_description = "A bot's API token (`manage.py bots token SLUG` prints one)."

    def authenticate(self, request: HttpRequest, token: str) -> Caller | None:
        return token_verify(token=token)


def context_of(request: HttpRequest, headers: ContextHeaders) -> Context:
    """The calling bot in the room its headers name (the server decides what that allows)."""
    caller: Caller = request.auth  # type: ignore[attr-defined]
    return call_context(
        bot=caller.bot,
        room_id=headers.room_id,
        room_kind=headers.room_kind,
        person=headers.person,
        projects=headers.project_list,
        joined=caller.joined,
    )
