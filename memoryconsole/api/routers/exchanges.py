"""Reporting an exchange for learning: accepted (202) and queued durably; the learner runs later."""

from django.http import HttpRequest
from ninja import Header, Router
from ninja.responses import Status

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import ContextHeaders, ExchangeIn, ExchangeOut
from memstore.calls.exchanges import exchange_submit

router = Router(tags=["learning"])


@router.post(
    "/exchanges",
    response={202: ExchangeOut, 200: ExchangeOut, **errors(400, 401, 403, 409, 413, 422)},
    operation_id="report_exchange",
    url_name="report_exchange",
)
def report_exchange(request: HttpRequest, room: Header[ContextHeaders], body: ExchangeIn):
    """Report a message and the reply the bot delivered. It is stored before this returns and
    learned from in the background (direct and group rooms only; small talk, an exchange a guest
    took part in (`guests`) and anything reported while learning is off are skipped: the answer
    then says `skipped` and why; a skipped exchange is never learned from later). Reporting the same message ids again (a retry) answers
    200 with the stored receipt and its status now (queued, skipped, done or failed).
    Every stored exchange also records which memories shaped the reply (`sources`): what
    recall returned just before (retrieved), the prompt section named by `digest` or else the
    last one served here (injected), and `recalled` (cited)."""
    receipt = exchange_submit(
        ctx=context_of(request, room),
        message=body.message,
        reply=body.reply,
        message_id=body.message_id,
        reply_id=body.reply_id,
        recalled=body.recalled,
        guests=body.guests,
        digest=body.digest,
    )
    return Status(200 if receipt.repeated else 202, ExchangeOut.of(receipt))
