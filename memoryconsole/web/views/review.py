"""A bot's review inbox: what the learner (and later synthesis) proposes, accepted, edited then
accepted, or rejected, one at a time or ticked together."""

from django.contrib import messages
from django.shortcuts import redirect, render

from memoryconsole.web.forms import ReviewForm
from memoryconsole.web.presenters import review as presenters
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.review import proposals_decide, review_inbox
from memstore.errors import FactNotFound, MemstoreError, NotAllowed


@console_view("GET")
def review_page(request, bot: str):
    """The proposals waiting for a person, oldest first."""
    proposals = review_inbox(bot=bot, viewer=viewer_of(request))
    context = {
        "bot": bot,
        "here": "review",
        "rows": presenters.proposal_rows(proposals),
        "can_edit": viewer_of(request).may_edit(bot),
    }
    return render(request, "web/review.html", context)


@console_view("POST")
def review_decide(request, bot: str):
    """Accept (maybe with an edited text) or reject the proposals sent."""
    form = ReviewForm(request.POST)
    if not form.is_valid() or not form.keys():
        messages.info(request, "Tick the proposals to accept or reject first.")
        return redirect("web:review", bot=bot)
    data = form.cleaned_data
    try:
        done = proposals_decide(
            bot=bot,
            viewer=viewer_of(request),
            keys=form.keys(),
            decision=data["decision"],
            text=data["text"] or None,
        )
    except (NotAllowed, FactNotFound):
        raise
    except MemstoreError as error:
        # A refusal (a secret, an excluded topic): said on the inbox, the proposal stays.
        messages.error(request, error.message)
        return redirect("web:review", bot=bot)
    messages.success(request, presenters.reviewed_message(done, data["decision"]))
    return redirect("web:review", bot=bot)
