"""Links between facts: read a fact's neighbourhood, add a link, remove one.

A link is stored in the source fact's line (`rel=<kind>:<id>`), so adding or removing one is an
ordinary write to a fact this room may change; the target must be a fact this room may read.
"""

from django.http import HttpRequest
from ninja import Header, Path, Query, Router
from ninja.responses import Status

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import FACT_ID, ContextHeaders, FactId, LinkOut
from memoryconsole.api.schemas.links import DepthQuery, LinkIn, LinksOut, NeighbourhoodOut
from memstore.calls.links import bot_link_add, bot_link_remove, bot_neighbours
from memstore.vocabulary import LinkKind

router = Router(tags=["links"])


@router.get(
    "/facts/{fact_id}/links",
    response={200: NeighbourhoodOut, **errors(401, 403, 409, 422)},
    operation_id="fact_links",
    url_name="fact_links",
)
def fact_links(
    request: HttpRequest,
    room: Header[ContextHeaders],
    params: Query[DepthQuery],
    fact_id: str = FactId,
):
    """The fact's neighbourhood: its links both ways, `depth` hops out, in what this room reads."""
    near = bot_neighbours(ctx=context_of(request, room), fact_ids=[fact_id], depth=params.depth)
    return NeighbourhoodOut.of(near)


@router.post(
    "/facts/{fact_id}/links",
    response={201: LinksOut, **errors(400, 401, 403, 404, 409, 422)},
    operation_id="link_add",
    url_name="link_add",
)
def add_link(
    request: HttpRequest, room: Header[ContextHeaders], body: LinkIn, fact_id: str = FactId
):
    """Link a fact this room may change to a fact it may read (404 if either is not there)."""
    links = bot_link_add(
        ctx=context_of(request, room), fact_id=fact_id, kind=body.kind, target=body.target
    )
    return Status(201, _links_out(fact_id, links))


@router.delete(
    "/facts/{fact_id}/links/{kind}/{target}",
    response={200: LinksOut, **errors(401, 403, 404, 409, 422)},
    operation_id="link_remove",
    url_name="link_remove",
)
def remove_link(
    request: HttpRequest,
    room: Header[ContextHeaders],
    kind: LinkKind,
    fact_id: str = FactId,
    target: str = Path(..., pattern=FACT_ID),
):
    """Remove one link from a fact this room may change (404 if it has no such link)."""
    links = bot_link_remove(
        ctx=context_of(request, room), fact_id=fact_id, kind=kind, target=target
    )
    return _links_out(fact_id, links)


def _links_out(fact_id: str, links: list[tuple[str, str]]) -> LinksOut:
    return LinksOut(
        id=fact_id,
        links=[LinkOut(source=fact_id, kind=kind, target=target) for kind, target in links],  # type: ignore[arg-type]
    )
