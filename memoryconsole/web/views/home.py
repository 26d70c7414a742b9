"""The home page: the bots with their fact counts, the newest changes, and what failed."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memoryconsole.web import presenters
from memoryconsole.web.errors import console_errors
from memoryconsole.web.views.common import viewer_of
from memstore.console.overview import bots_overview, problems_list, workspace_changes


@login_required
@require_GET
@console_errors
def home_page(request):
    """Bots with their fact counts, the newest changes, and what failed."""
    viewer = viewer_of(request)
    problems = problems_list(viewer=viewer)
    context = {
        "bots": bots_overview(viewer=viewer),
        "changes": presenters.history_rows(workspace_changes(viewer=viewer)),
        "problems": problems,
        "nothing_failed": presenters.nothing_failed(problems),
    }
    return render(request, "web/home.html", context)
