"""The guides the package carries, for staff: `/docs/` lists them, `/docs/<name>/` shows one."""

from django.http import Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe

from memoryconsole.web.guides import guide_html, guides
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.errors import NotAllowed


def _staff_only(request) -> None:
    if not viewer_of(request).staff:
        raise NotAllowed("The guides are for staff.")


@console_view("GET")
def docs_index(request):
    """Every guide with its title."""
    _staff_only(request)
    return render(request, "web/docs.html", {"guides": guides()})


@console_view("GET")
def docs_page(request, name: str):
    """One guide, rendered (its raw HTML shown as text)."""
    _staff_only(request)
    html = guide_html(name)
    if html is None:
        raise Http404(f"No guide {name!r}.")
    # Rendered by markdown-it with raw HTML off: every tag in it is the renderer's own.
    body = mark_safe(html)  # noqa: S308
    return render(request, "web/docs.html", {"guides": guides(), "body": body, "name": name})
