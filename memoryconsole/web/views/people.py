"""The people page (staff): people and the bots that may act for them, bots and their console
editors, rooms as first named (with a reset)."""

from django.contrib import messages
from django.shortcuts import redirect, render

from memoryconsole.web.forms import PeopleChangeForm
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.people import console_people_change, people_overview
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
