"""The console's webhooks page (staff only): the endpoints that receive the change feed, made
and disabled here, and the delivery log.

Every function checks the viewer is staff (NotAllowed otherwise) and calls
`memstore.feed.endpoints`; nothing here decides what an endpoint may receive.
"""

from dataclasses import dataclass

from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.feed.endpoints import (
    OWNER_KINDS,
    DeliveryInfo,
    EndpointInfo,
    deliveries_recent,
    endpoint_add,
    endpoint_disable,
    endpoints_list,
)
from memstore.registry.bots import bots_registered

__all__ = ["OWNER_KINDS", "WEBHOOK_ACTIONS"]
WEBHOOK_ACTIONS = ("add", "disable")  # the page's form derives its choices from this
LOG_ROWS = 50


@dataclass(frozen=True, slots=True)
class WebhooksOverview:
    """What the page lists: endpoints, the newest deliveries, and the bots and projects an
    endpoint may be made for."""

    endpoints: list[EndpointInfo]
    deliveries: list[DeliveryInfo]
    bots: list[str]
    projects: list[str]


def webhooks_overview(*, viewer: Viewer, endpoint_id: int | None = None) -> WebhooksOverview:
    """Every endpoint and the newest deliveries (of one endpoint, or all); staff only."""
    _staff(viewer)
    bots = bots_registered()
    return WebhooksOverview(
        endpoints=endpoints_list(),
        deliveries=deliveries_recent(endpoint_id=endpoint_id, limit=LOG_ROWS),
        bots=[b.slug for b in bots],
        projects=sorted({p for b in bots for p in b.projects}),
    )


def console_webhook_add(*, viewer: Viewer, owner_kind: str, owner: str, url: str) -> EndpointInfo:
    """Register an endpoint as this staff member; the answer carries its secret, once."""
    _staff(viewer)
    return endpoint_add(owner_kind=owner_kind, owner=owner, url=url, by=viewer.person)


def console_webhook_disable(*, viewer: Viewer, endpoint_id: int) -> str:
    """Stop an endpoint's deliveries; a sentence saying so."""
    _staff(viewer)
    done = endpoint_disable(endpoint_id=endpoint_id)
    return f"Endpoint {done.id} ({done.url}) disabled: nothing more is sent to it."


def _staff(viewer: Viewer) -> None:
    if not viewer.staff:
        raise NotAllowed("Only staff manage webhook endpoints and see their deliveries.")
