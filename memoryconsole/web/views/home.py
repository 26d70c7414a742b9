"""The home page: the bots with their fact counts, the newest changes, and what failed."""

from django.shortcuts import render

from memoryconsole.web.presenters import history, home
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.overview import bots_overview, problems_list, workspace_changes
from memstore.upkeep.readiness import memory_volume_notice


@console_view("GET")
def home_page(request):
    """Bots with their fact counts, the newest changes, and what failed."""
    viewer = viewer_of(request)
    problems = problems_list(viewer=viewer)
    volume_code, volume_notice = memory_volume_notice()
    bots = bots_overview(viewer=viewer)
    context = {
        "volume_code": volume_code,
        "volume_notice": volume_notice,
        "bots": bots,
        "changes": history.history_rows(
            workspace_changes(viewer=viewer), viewer.private_conversations
        ),
        "private_column": any(b.private for b in bots),
        "problems": problems,
        "nothing_failed": home.nothing_failed(problems),
    }
    return render(request, "web/home.html", context)
