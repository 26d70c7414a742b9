"""What every console page's navigation shows beside its links: how many proposals wait for
review on the bot in the URL (counted only when a template shows it)."""

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from memoryconsole.web.views.common import viewer_of
from memstore.console.review import review_count


def bot_navigation(request: HttpRequest) -> dict:
    """`review_count` for the bot named in the URL (0 elsewhere, or for someone logged out)."""
    match = getattr(request, "resolver_match", None)
    bot = match.kwargs.get("bot") if match else None
    if not bot or not request.user.is_authenticated:
        return {"review_count": 0}
    return {
        "review_count": SimpleLazyObject(lambda: review_count(bot=bot, viewer=viewer_of(request)))
    }
