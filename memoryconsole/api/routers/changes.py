"""The change feed: what changed in the memory this room reads, after a cursor."""

from django.http import HttpRequest
from ninja import Header, Query, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import ContextHeaders
from memoryconsole.api.schemas.feed import FeedOut, FeedQuery
from memstore.calls.changes import changes_since

router = Router(tags=["changes"])


@router.get(
    "/changes",
    response={200: FeedOut, **errors(401, 403, 409, 422)},
    operation_id="changes",
    url_name="changes",
)
def changes(request: HttpRequest, room: Header[ContextHeaders], params: Query[FeedQuery]):
    """Every add, edit, supersede, forget, erase and restore in what this room may read, oldest
    first, after `since` (hand edits included). Send the answer's `cursor` next time. An
    erased fact's events carry no text. 409 cursor_unknown: the cursor is from another feed."""
    page = changes_since(ctx=context_of(request, room), since=params.since, limit=params.limit)
    return FeedOut.of(page)
