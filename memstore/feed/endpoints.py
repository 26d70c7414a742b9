"""Webhook endpoints, registered by staff for one bot or one project, and their delivery log.

An endpoint receives the events registered after it (never the history before), signed with
its own secret (`memstore.feed.signing`), shown once when it is made. Disabling one stops its
deliveries, pending ones included. This module does not send anything (`dispatch` does).
"""

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from memstore.errors import InvalidName
from memstore.facts.paths import check_slug
from memstore.feed.signing import secret_new
from memstore.index.events import dispatch_wanted, events_ingest, feed_max
from memstore.models import ProjectMember, WebhookDelivery, WebhookEndpoint
from memstore.registry.bots import bot_get

OWNER_KINDS = ("bot", "project")


@dataclass(frozen=True, slots=True)
class EndpointInfo:
    """An endpoint as staff see it; `secret` only in the answer that made it."""

    id: int
    owner_kind: str
    owner: str
    url: str
    active: bool
    created_by: str
    created_at: datetime
    delivered: int = 0
    pending: int = 0
    failed: int = 0
    secret: str = ""


@dataclass(frozen=True, slots=True)
class DeliveryInfo:
    """One event sent (or being sent) to one endpoint: the delivery log's row."""

    id: int
    endpoint_id: int
    url: str
    event_id: int
    state: str
    attempts: int
    status: int | None
    error: str
    updated_at: datetime


def endpoint_add(*, owner_kind: str, owner: str, url: str, by: str) -> EndpointInfo:
    """Register an endpoint for a bot or a project; InvalidName (or UnknownBot) says what is
    wrong with the request. The answer carries the secret, shown this once."""
    if owner_kind not in OWNER_KINDS:
        raise InvalidName(f"An endpoint is for a bot or a project, not {owner_kind!r}.")
    check_slug(owner, owner_kind)
    if owner_kind == "bot":
        bot_get(slug=owner)
    elif not ProjectMember.objects.filter(project=owner).exists():
        raise InvalidName(f"No bot has joined project {owner!r}: nobody would read its memory.")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidName(
            f"An endpoint's URL must be http:// or https:// with a host, not {url!r}."
        )
    events_ingest()  # what happened before it is not its business: start after the newest
    row = WebhookEndpoint.objects.create(
        owner_kind=owner_kind,
        owner=owner,
        url=url.strip()[:500],
        secret=secret_new(),
        dispatched=feed_max(),
        created_by=by[:150],
    )
    dispatch_wanted()
    return _info(row, secret=row.secret)


def endpoint_disable(*, endpoint_id: int) -> EndpointInfo:
    """Stop an endpoint's deliveries (its log stays); InvalidName if there is no such one."""
    row = _row(endpoint_id)
    row.active = False
    row.save(update_fields=["active"])
    return _info(row)


def endpoints_list() -> list[EndpointInfo]:
    """Every endpoint, newest first, with its deliveries counted by state."""
    counts: dict[tuple[int, str], int] = {}
    for endpoint_id, state in WebhookDelivery.objects.values_list("endpoint_id", "state"):
        counts[(endpoint_id, state)] = counts.get((endpoint_id, state), 0) + 1
    return [
        _info(row, **{s: counts.get((row.id, s), 0) for s in ("delivered", "pending", "failed")})
        for row in WebhookEndpoint.objects.order_by("-id")
    ]


def deliveries_recent(*, endpoint_id: int | None = None, limit: int = 50) -> list[DeliveryInfo]:
    """The newest deliveries (of one endpoint, or all), newest first."""
    rows = WebhookDelivery.objects.select_related("endpoint").order_by("-id")
    if endpoint_id is not None:
        rows = rows.filter(endpoint_id=endpoint_id)
    return [
        DeliveryInfo(
            id=row.id,
            endpoint_id=row.endpoint_id,
            url=row.endpoint.url,
            event_id=row.event_id,
            state=row.state,
            attempts=row.attempts,
            status=row.status,
            error=row.error,
            updated_at=row.updated_at,
        )
        for row in rows[:limit]
    ]


def _row(endpoint_id: int) -> WebhookEndpoint:
    row = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
    if row is None:
        raise InvalidName(f"There is no webhook endpoint {endpoint_id}.")
    return row


def _info(row: WebhookEndpoint, *, secret: str = "", **counts: int) -> EndpointInfo:
    return EndpointInfo(
        id=row.id,
        owner_kind=row.owner_kind,
        owner=row.owner,
        url=row.url,
        active=row.active,
        created_by=row.created_by,
        created_at=row.created_at,
        secret=secret,
        **counts,
    )
