"""The webhooks page (staff): the endpoints that receive the change feed, registering one (its
secret shown once, on that response only), disabling one, and the delivery log."""

from django.contrib import messages
from django.shortcuts import redirect, render

from memoryconsole.web.forms import WebhookForm
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.webhooks import (
    console_webhook_add,
    console_webhook_disable,
    webhooks_overview,
)
from memstore.errors import InvalidName


@console_view("GET", "POST")
def webhooks_page(request):
    """GET: endpoints and the delivery log (`?endpoint=ID`: one endpoint's). POST: register
    (the page again, with the new secret) or disable (back to the page)."""
    viewer = viewer_of(request)
    made = None
    if request.method == "POST":
        form = WebhookForm(request.POST)
        if not form.is_valid():
            problems = "; ".join(f"{k}: {e[0]}" for k, e in form.errors.items())
            raise InvalidName(f"That change is not valid: {problems}")
        data = form.cleaned_data
        if data["action"] == "disable":
            message = console_webhook_disable(viewer=viewer, endpoint_id=data["endpoint"] or 0)
            messages.success(request, message)
            return redirect("web:webhooks")
        made = console_webhook_add(
            viewer=viewer, owner_kind=data["owner_kind"], owner=data["owner"], url=data["url"]
        )
    chosen = request.GET.get("endpoint", "")
    overview = webhooks_overview(
        viewer=viewer, endpoint_id=int(chosen) if chosen.isdigit() else None
    )
    response = render(request, "web/webhooks.html", {"overview": overview, "made": made})
    response["Cache-Control"] = "no-store"  # a secret shown once must not sit in a cache
    return response
