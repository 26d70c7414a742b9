"""The OAuth consent page (/oauth/authorize): a signed-in person sees which MCP client asks,
picks the bot it connects to, what it may do and whether it acts as them in one direct room,
then Allow (back to the client with a code) or Deny. And their connections (/connections/):
every client they allowed, each with a Disconnect.

An unknown client or a redirect URI it did not register is shown here as an error page and
nobody is redirected (RFC 6749 §4.1.2.1). Any other bad request goes back to the client as
`error=…` only if this person has allowed that client before; otherwise the error page says
what was wrong and where the client wants them sent, and they go there only by following the
link (anyone may register a client, so an unasked redirect would make this server a way to send
signed-in people anywhere). The page's CSP lets its form lead to the client's redirect URI and
nowhere else.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.csp import CSP

from memoryconsole.mcp.oauth import resource_of
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.connections import (
    ANY_ROOM,
    AS_ME,
    client_used,
    connection_end,
    connections_of,
    consent_allow,
    consent_bots,
    default_room,
    rooms_of,
)
from memstore.errors import MemstoreError, OAuthRefused
from memstore.registry.oauth_clients import SCOPES, AuthRequest, authorization_request


@console_view("GET", "POST")
def authorize_page(request: HttpRequest) -> HttpResponse:
    """GET: the consent form for a checked authorization request. POST: Allow or Deny."""
    params = request.POST if request.method == "POST" else request.GET
    try:
        asked = authorization_request(params=params, resource=resource_of(request))
    except OAuthRefused as exc:
        if not exc.redirect:
            raise
        if client_used(user_id=request.user.pk, client_id=params.get("client_id", "")):
            return HttpResponseRedirect(exc.detail["redirect_to"])
        return _unasked(request, exc)
    viewer = viewer_of(request)
    bots = consent_bots(viewer=viewer)
    chosen = {
        "bot": params.get("bot", bots[0].slug if len(bots) == 1 else ""),
        "scopes": params.getlist("scopes") if request.method == "POST" else list(asked.scopes),
        "bind": params.get("bind", AS_ME),
        "room_id": params.get("room_id", ""),
    }
    problem = ""
    if request.method == "POST":
        if params.get("decision") != "allow":
            return HttpResponseRedirect(
                asked.answer(error="access_denied", error_description="The person said no.")
            )
        try:
            return HttpResponseRedirect(
                consent_allow(
                    viewer=viewer,
                    user_id=request.user.pk,
                    request=asked,
                    bot=chosen["bot"],
                    scopes=tuple(chosen["scopes"]),
                    bind=chosen["bind"],
                    room_id=chosen["room_id"],
                )
            )
        except MemstoreError as exc:  # NotAllowed, a bad room id: shown on the kept form
            problem = exc.message
    return _consent(request, asked, bots, chosen, problem, viewer.staff, viewer.person)


def _consent(request, asked: AuthRequest, bots, chosen, problem, staff, person) -> HttpResponse:
    context = {
        "asked": asked,
        "fields": asked.fields(),
        "bots": bots,
        "chosen": chosen,
        "scopes": [(name, text, name in chosen["scopes"]) for name, text in SCOPES.items()],
        "problem": problem,
        "staff": staff,
        "as_me": AS_ME,
        "any_room": ANY_ROOM,
        "new_rooms": {b.slug: default_room(viewer=viewer_of(request), bot=b.slug) for b in bots},
        "my_rooms": rooms_of(viewer=viewer_of(request)),
        "first_time": not client_used(user_id=request.user.pk, client_id=asked.client.client_id),
        "person": person,
        "redirect_host": urlsplit(asked.redirect_uri).netloc,
    }
    response = render(request, "web/consent.html", context, status=422 if problem else 200)
    target = urlsplit(asked.redirect_uri)
    # form-action also governs where the POST's redirect may go: this client's redirect URI.
    response._csp_config = {  # type: ignore[attr-defined]
        **settings.SECURE_CSP,
        "form-action": [CSP.SELF, f"{target.scheme}://{target.netloc}"],
    }
    response["Cache-Control"] = "no-store"
    return response


def _unasked(request: HttpRequest, refused: OAuthRefused) -> HttpResponse:
    """A bad request from a client this person never allowed: said here, not redirected."""
    target = refused.detail["redirect_to"]
    context = {
        "error": refused.error,
        "message": refused.message,
        "redirect_to": target,
        "redirect_host": urlsplit(target).netloc,
    }
    response = render(request, "web/consent_refused.html", context, status=400)
    response["Cache-Control"] = "no-store"
    return response


@console_view("GET", "POST")
def connections_page(request: HttpRequest) -> HttpResponse:
    """GET: the MCP clients this person connected. POST: disconnect one (its tokens stop)."""
    if request.method == "POST":
        try:
            ended = connection_end(user_id=request.user.pk, connection_id=int(request.POST["id"]))
        except (KeyError, ValueError):
            ended = False
        if ended:
            messages.success(request, "Disconnected: that client's tokens no longer work.")
        else:
            messages.error(request, "That connection is not yours or was already ended.")
        return redirect("web:connections")
    context = {"connections": connections_of(user_id=request.user.pk)}
    return render(request, "web/connections.html", context)
