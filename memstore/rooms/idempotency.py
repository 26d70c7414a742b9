"""Idempotency keys: a call retried with the same key gets the first reply instead of acting twice.

The first successful reply (any 2xx) is stored with a fingerprint of the request for a day. A retry
with the same key and the same request gets that reply back; the same key with a different
request is refused. Failed calls are not stored, so a retry after a failure tries again. This
module does not know what the call does or how replies are rendered; the caller passes both.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from memstore.errors import IdempotencyKeyReused, InvalidFact
from memstore.facts.locks import bot_lock
from memstore.models import IdempotentReply
from memstore.registry.bots import bot_row

KEEP_FOR = timedelta(hours=24)
MAX_KEY_CHARS = 255


@dataclass(frozen=True, slots=True)
class Reply:
    """A call's reply; `replayed` says it was stored from an earlier call with the same key."""

    status: int
    body: dict
    replayed: bool = False


def idempotent_call(
    *, bot: str, key: str, request: object, call: Callable[[], tuple[int, dict]]
) -> Reply:
    """Run `call` once per (bot, key, request); a retry replays the stored reply."""
    if not key or len(key) > MAX_KEY_CHARS or not key.isprintable() or not key.isascii():
        raise InvalidFact(f"An idempotency key is 1-{MAX_KEY_CHARS} printable ASCII characters.")
    fingerprint = hashlib.sha256(
        json.dumps(request, sort_keys=True, default=str).encode()
    ).hexdigest()
    # The bot's write lock (re-entrant per session) makes two retries racing each other queue up:
    # the second one finds the first one's reply.
    with bot_lock(bot):
        since = timezone.now() - KEEP_FOR
        row = IdempotentReply.objects.filter(bot__slug=bot, key=key, created_at__gte=since).first()
        if row is not None:
            if row.fingerprint != fingerprint:
                raise IdempotencyKeyReused(
                    "This Idempotency-Key was already used for a different request; "
                    "use a new key for a new request.",
                    detail={"key": key},
                )
            return Reply(status=row.status, body=row.body, replayed=True)
        status, body = call()
        if 200 <= status < 300:
            owner = bot_row(slug=bot)
            IdempotentReply.objects.filter(bot=owner, created_at__lt=since).delete()
            IdempotentReply.objects.create(
                bot=owner, key=key, fingerprint=fingerprint, status=status, body=body
            )
        return Reply(status=status, body=body)
