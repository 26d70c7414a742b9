"""What every console page knows: how a management command is spelled here, and what its
navigation shows beside its links: the name of the bot in the URL
and how many proposals wait for review on it (each read only when a template shows it)."""

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from memoryconsole.web.views.common import viewer_of
from memstore.console.review import review_count
from memstore.console.tokens import bot_identity
from memstore.invocation import manage_command


def manage_spelling(request: HttpRequest) -> dict:
    """`manage`: how a management command is run in this installation (`./dev manage`,
    `memory-console manage` or the container's exec form), for every hint a page gives."""
    return {"manage": manage_command()}


def bot_navigation(request: HttpRequest) -> dict:
    """`review_count` and `bot_identity` for the bot named in the URL (a count of 0 elsewhere,
    or for someone logged out)."""
    match = getattr(request, "resolver_match", None)
    bot = match.kwargs.get("bot") if match else None
    if not bot or not request.user.is_authenticated:
        return {"review_count": 0}
    return {
        "review_count": SimpleLazyObject(lambda: review_count(bot=bot, viewer=viewer_of(request))),
        "bot_identity": SimpleLazyObject(lambda: bot_identity(bot=bot)),
    }
