"""Taking in an exchange for learning: validate, store durably, and queue it (or record why not).

The API's report endpoint calls only `exchange_submit`. The exchange row and its job are written
in one transaction, so an exchange is either stored and queued or not taken at all; a repeated
report of the same exchange (same bot, room and message ids) returns the first receipt.
Exchanges the learner will not look at are recorded as skipped, without their text (a small-talk
message is kept: it is short and shows why it was skipped).
"""

import re
from dataclasses import dataclass, replace

from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from memstore.errors import InvalidExchange
from memstore.learning.filter import is_small_talk
from memstore.learning.requested import (
    Requested,
    requests_find,
    requests_keep,
    requests_of,
    requests_record,
)
from memstore.learning.sources import SourceCounts, digest_check, sources_counts, sources_record
from memstore.llm.config import learner_config
from memstore.models import Exchange, LearningEvent
from memstore.rooms.access import Context
from memstore.rules.controls import person_controls
from memstore.vocabulary import LEARNABLE_ROOM_KINDS, MESSAGE_ID_PATTERN

ELIGIBLE_ROOMS = LEARNABLE_ROOM_KINDS
# What a skipped exchange's receipt says (the API's `detail`), for the reasons fixed in advance.
SKIP_DETAILS = {
    "off": "Learning is off (no model is configured, or LEARNING_MODE=off): this exchange is "
    "not kept and will never be learned from, even once learning is turned on.",
    "guests": "Someone from outside the workspace took part: nothing is learned from this "
    "exchange and its text is not kept.",
}
MAX_EXCHANGE_CHARS = 40_000
MAX_RECALLED = 200
_ID_RE = re.compile(MESSAGE_ID_PATTERN)


@dataclass(frozen=True, slots=True)
class ExchangeReceipt:
    """What happened to a reported exchange: `status` is queued or skipped (with the reason);
    a repeated report gets the first one's id and its current status (queued, done, skipped,
    failed), with `repeated` set. `remembered`: what the person's message asked to be
    remembered ("remember that…"), saved, held or refused at once, whatever the learning mode."""

    id: int
    status: str
    reason: str = ""
    repeated: bool = False
    remembered: tuple[Requested, ...] = ()  # what the person asked to remember, kept at once
    detail: str = ""
    sources: SourceCounts | None = None  # what was retrieved, injected and cited (`sources`)


def exchange_submit(
    *,
    ctx: Context,
    message: str,
    reply: str,
    message_id: str,
    reply_id: str,
    recalled: list[str] | tuple[str, ...] = (),
    guests: bool = False,
    digest: str = "",
) -> ExchangeReceipt:
    """Store an exchange and queue it for learning, or record why it is skipped; first keep what
    the person's own message asks to be remembered (`memstore.learning.requested`). `guests`:
    someone from outside the workspace (a guest, a customer, a partner) took part, so nothing
    is learned from it, nor kept on request (the one asking may be the guest), nor its text
    kept. Which memories shaped the reply is recorded with it (`memstore.learning.sources`):
    `digest` names the prompt section the bot used."""
    _check(message=message, reply=reply, message_id=message_id, reply_id=reply_id)
    recalled = cited = _check_recalled(recalled)
    digest_check(digest)
    # A retry (the bot never saw our answer) is the common repeat: answer it without a write.
    if (existing := _existing(ctx, message_id, reply_id)) is not None:
        return existing
    kept: list[Requested] = []
    if ctx.room.kind in ELIGIBLE_ROOMS and not guests and (asked := requests_find(message)):
        kept = requests_keep(ctx=ctx, asked=asked, message_id=message_id, day=timezone.localdate())
        # The learner is told these are known, so it does not save them a second time.
        recalled = [*recalled, *(k.fact_id for k in kept if k.status == "saved")]
    reason, detail = _skip_reason(ctx, message, guests=guests)
    try:
        with transaction.atomic():
            if reason:
                receipt = _store_skipped(ctx, message, message_id, reply_id, reason, detail)
            else:
                receipt = _store_queued(ctx, message, reply, message_id, reply_id, recalled)
            requests_record(exchange_id=receipt.id, outcomes=kept)
            sources = sources_record(ctx=ctx, exchange_id=receipt.id, digest=digest, cited=cited)
            return replace(receipt, remembered=tuple(kept), sources=sources)
    except IntegrityError:  # reported before (or twice at once): the first report wins
        existing = _existing(ctx, message_id, reply_id)
        if existing is None:
            raise
        return existing


def _check(*, message: str, reply: str, message_id: str, reply_id: str) -> None:
    for name, value in (("message_id", message_id), ("reply_id", reply_id)):
        if not isinstance(value, str) or not _ID_RE.fullmatch(value) or ".." in value:
            raise InvalidExchange(
                f"{name} {value!r} is not allowed: use 1-64 letters, digits and . _ : -, "
                "starting with a letter or digit."
            )
    for name, value in (("message", message), ("reply", reply)):
        if not isinstance(value, str):
            raise InvalidExchange(f"The {name} must be text.")
        if len(value) > MAX_EXCHANGE_CHARS:
            raise InvalidExchange(
                f"The {name} is {len(value):,} characters; at most {MAX_EXCHANGE_CHARS:,} "
                "are taken for learning."
            )
    if not message.strip():
        raise InvalidExchange("The message is empty.")


def _check_recalled(recalled) -> list[str]:
    items = list(recalled or ())
    if len(items) > MAX_RECALLED or not all(isinstance(r, str) and len(r) <= 600 for r in items):
        raise InvalidExchange(
            f"recalled must be at most {MAX_RECALLED} fact ids or texts of up to 600 characters."
        )
    return items


def _existing(ctx: Context, message_id: str, reply_id: str) -> ExchangeReceipt | None:
    row = (
        Exchange.objects.filter(
            bot=ctx.bot, room_id=ctx.room.id, message_id=message_id, reply_id=reply_id
        )
        .values_list("pk", "status", "reason")
        .first()
    )
    if row is None:
        return None
    return ExchangeReceipt(
        id=row[0],
        status=row[1],
        reason=row[2],
        repeated=True,
        remembered=tuple(requests_of(row[0])),
        detail=SKIP_DETAILS.get(row[2], ""),
        sources=SourceCounts(**sources_counts(exchange_id=row[0])),
    )


def _skip_reason(ctx: Context, message: str, *, guests: bool) -> tuple[str, str]:
    if ctx.room.kind not in ELIGIBLE_ROOMS:
        return "room_kind", f"Only direct and group rooms are learned from, not {ctx.room.kind}."
    config = learner_config()
    if config.mode == "off":
        # Its text is not kept, so nothing can learn from it later when learning is turned on:
        # the learner only ever reads exchanges reported from then on.
        return "off", SKIP_DETAILS["off"]
    if guests:
        return "guests", SKIP_DETAILS["guests"]
    if ctx.person and person_controls(person=ctx.person).paused:
        return "paused", f"{ctx.person} paused memory: nothing is learned from their messages."
    if is_small_talk(message, max_chars=config.small_talk_chars, phrases=config.small_talk):
        return "small_talk", "Small talk: no model call."
    return "", ""


def _base(ctx: Context, message_id: str, reply_id: str) -> dict:
    return {
        "bot": ctx.bot,
        "room_id": ctx.room.id,
        "room_kind": ctx.room.kind,
        "person": ctx.person or "",
        "projects": list(ctx.projects),
        "message_id": message_id,
        "reply_id": reply_id,
    }


def _store_skipped(
    ctx: Context, message: str, message_id: str, reply_id: str, reason: str, detail: str
) -> ExchangeReceipt:
    exchange = Exchange.objects.create(
        **_base(ctx, message_id, reply_id),
        message=message if reason == "small_talk" else "",
        status=Exchange.SKIPPED,
        reason=reason,
    )
    LearningEvent.objects.create(
        exchange=exchange,
        key="skipped",
        bot=ctx.bot,
        room_id=ctx.room.id,
        room_kind=ctx.room.kind,
        person=ctx.person or "",
        kind="skipped",
        reason=reason,
        mode=learner_config().mode,
        text=message if reason == "small_talk" else "",
        detail=detail,
    )
    return ExchangeReceipt(id=exchange.pk, status=Exchange.SKIPPED, reason=reason, detail=detail)


def _store_queued(
    ctx: Context, message: str, reply: str, message_id: str, reply_id: str, recalled: list[str]
) -> ExchangeReceipt:
    from memstore.learning.queue import exchange_enqueue

    # Numbering the eligible exchanges of a bot in a room must not race: two reports at once
    # would both be "the 6th" and both write an episode. A transaction-scoped advisory lock
    # on (bot, room) serialises just that.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 6))",
            [f"memstore.learning.seq:{ctx.bot}:{ctx.room.id}"],
        )
    last = Exchange.objects.filter(bot=ctx.bot, room_id=ctx.room.id).aggregate(n=Max("seq"))["n"]
    exchange = Exchange.objects.create(
        **_base(ctx, message_id, reply_id),
        message=message,
        reply=reply,
        recalled=recalled,
        seq=(last or 0) + 1,
    )
    exchange_enqueue(exchange_id=exchange.pk)
    return ExchangeReceipt(id=exchange.pk, status=Exchange.QUEUED)
