"""Webhook dispatch: which endpoint gets which feed event, and sending one delivery.

`dispatch_run` numbers the histories' new lines (`events_ingest`), then for each active
endpoint looks at the events after the last one it was considered for and makes a
`WebhookDelivery` for each its audience may read (`memstore.feed.audience`: the same rules as
the feed), queueing one delivery job per delivery once it is committed. `delivery_send` builds the body from the event as it is
now (an erase since then leaves no text), signs it, POSTs it and records the answer; a
failure raises `DeliveryFailed` so the queue retries it with backoff. The event's number is
the delivery's id across every redelivery (`Memory-Console-Event-Id`).
"""

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict

from django.db import transaction

from memstore.errors import UnknownBot
from memstore.feed.audience import Audience, audience_of_bot, audience_of_project
from memstore.feed.read import feed_event
from memstore.feed.signing import EVENT_HEADER, SIGNATURE_HEADER, signature_header
from memstore.index.events import events_ingest
from memstore.models import ChangeEvent, WebhookDelivery, WebhookEndpoint

DISPATCH_BATCH = 500
SEND_TIMEOUT_S = 10.0


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx (or could not be reached): retry later."""


def dispatch_run(*, queue: Callable[[int], object]) -> int:
    """Make the deliveries of every active endpoint's new events, calling `queue(delivery id)`
    for each once it is committed; how many."""
    events_ingest()
    made = 0
    for endpoint_id in WebhookEndpoint.objects.filter(active=True).values_list("id", flat=True):
        made += _endpoint_dispatch(endpoint_id, queue)
    return made


def _endpoint_dispatch(endpoint_id: int, queue: Callable[[int], object]) -> int:
    made = 0
    while True:
        with transaction.atomic():
            endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint_id)
            if not endpoint.active:
                return made
            audience = _audience(endpoint)
            rows = list(
                ChangeEvent.objects.filter(id__gt=endpoint.dispatched).order_by("id")[
                    :DISPATCH_BATCH
                ]
            )
            if not rows:
                return made
            for row in rows:
                if audience is not None and audience.sees(row):
                    delivery, created = WebhookDelivery.objects.get_or_create(
                        endpoint=endpoint, event=row
                    )
                    if created:
                        # Once the delivery is committed: its job must find it.
                        transaction.on_commit(lambda i=delivery.id: queue(i))
                        made += 1
            endpoint.dispatched = rows[-1].id
            endpoint.save(update_fields=["dispatched"])


def _audience(endpoint: WebhookEndpoint) -> Audience | None:
    try:
        if endpoint.owner_kind == "bot":
            return audience_of_bot(endpoint.owner)
        return audience_of_project(endpoint.owner)
    except UnknownBot:  # the bot was deleted: nobody reads for it any more
        return None


def delivery_body(delivery: WebhookDelivery) -> bytes:
    """What is POSTed: the event as the feed shows it now, and which endpoint it is for."""
    event = asdict(feed_event(delivery.event))
    return json.dumps(
        {"id": delivery.event_id, "endpoint": delivery.endpoint_id, "event": event},
        ensure_ascii=False,
        sort_keys=True,
    ).encode("utf-8")


def delivery_send(*, delivery_id: int, final: bool) -> str:
    """Send one delivery and record what happened ("delivered", "gone"); DeliveryFailed when
    the receiver refused or could not be reached (`final`: no retry follows: marked failed)."""
    delivery = (
        WebhookDelivery.objects.select_related("endpoint", "event").filter(pk=delivery_id).first()
    )
    if delivery is None or delivery.state == "delivered":
        return "gone" if delivery is None else "delivered"
    endpoint = delivery.endpoint
    if not endpoint.active:
        _record(delivery, "failed", None, "the endpoint was disabled")
        return "disabled"
    body = delivery_body(delivery)
    request = urllib.request.Request(
        endpoint.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "memory-console-webhooks",
            SIGNATURE_HEADER: signature_header(secret=endpoint.secret, body=body),
            EVENT_HEADER: str(delivery.event_id),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=SEND_TIMEOUT_S) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status, reason = error.code, f"HTTP {error.code}"
    except (urllib.error.URLError, OSError) as error:
        status, reason = None, f"not reached: {getattr(error, 'reason', error)}"
    else:
        reason = ""
    if status is not None and 200 <= status < 300:
        _record(delivery, "delivered", status, "")
        return "delivered"
    _record(delivery, "failed" if final else "pending", status, reason)
    raise DeliveryFailed(f"delivery {delivery_id} to {endpoint.url}: {reason}")


def _record(delivery: WebhookDelivery, state: str, status: int | None, error: str) -> None:
    delivery.state, delivery.status, delivery.error = state, status, str(error)[:300]
    delivery.attempts += 1
    delivery.save(update_fields=["state", "status", "error", "attempts", "updated_at"])
