"""The people page (staff): people and the bots that may act for them, bots and their console
editors, rooms as first named (with a reset); and the share audit (staff): every private memory
shared with the workspace, by whom and when."""

from django.contrib import messages
from django.shortcuts import redirect, render

from memoryconsole.web.forms import PeopleChangeForm
from memoryconsole.web.presenters.history import stamp_time
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.people import console_people_change, people_overview
from memstore.console.sharing import console_share_audit
from memstore.errors import InvalidName


@console_view("GET", "POST")
def people_page(request):
    """GET: the registry. POST: one change (staff only), then back to the page."""
    viewer = viewer_of(request)
    if request.method == "POST":
        form = PeopleChangeForm(request.POST)
        if not form.is_valid():
            problems = "; ".join(f"{k}: {e[0]}" for k, e in form.errors.items())
            raise InvalidName(f"That change is not valid: {problems}")
        messages.success(request, console_people_change(viewer=viewer, **form.cleaned_data))
        return redirect("web:people")
    return render(request, "web/people.html", {"overview": people_overview(viewer=viewer)})


@console_view("GET")
def share_audit_page(request):
    """The share audit, newest first (staff only)."""
    audit = console_share_audit(viewer=viewer_of(request))
    rows = [(row, stamp_time(row.entry.at)) for row in audit.rows]
    return render(request, "web/share_audit.html", {"audit": audit, "rows": rows})
