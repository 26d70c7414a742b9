"""Request and response shapes of learning: an exchange reported after a delivered reply,
its receipt, and which memories the receipt says shaped the reply."""

from typing import Annotated, Any, Literal

from ninja import Field

from memoryconsole.api.schemas.base import MESSAGE_ID, Out, StrictIn, Text

# --- learning ------------------------------------------------------------------------------------


class ExchangeIn(StrictIn):
    """One exchange (after the reply was delivered), for the learner to consider."""

    message: Text = Field(min_length=1, max_length=40_000, description="What the person said.")
    reply: Text = Field(max_length=40_000, description="What the bot answered.")
    message_id: str = Field(pattern=MESSAGE_ID, description="The message's id in your system.")
    reply_id: str = Field(pattern=MESSAGE_ID, description="The reply's id in your system.")
    recalled: list[Annotated[Text, Field(max_length=600)]] = Field(
        default_factory=list,
        max_length=200,
        description="Ids or texts of facts recalled for this reply (so they aren't re-learned).",
    )
    guests: bool = Field(
        False,
        description="Someone from outside the workspace (a guest, a customer, a partner) took "
        "part: nothing is learned from this exchange (skipped, reason guests).",
    )
    digest: str = Field(
        "",
        pattern=r"^([0-9a-f]{16})?$",
        description="The `digest` of the prompt section this reply was built with: its facts "
        "are recorded as injected. Empty: the last section served to this bot in this room.",
    )


class RememberedOut(Out):
    """One thing the person's message asked to be remembered ("remember that…")."""

    text: str = Field(description="The fact as kept (first person made third: 'Prefers…').")
    status: Literal["saved", "held", "refused"] = Field(
        description="saved (pinned, via=tool), held for review (reads as an instruction) or "
        "refused by the content rules (a secret, an excluded topic)."
    )
    fact_id: str = Field("", description="The saved fact's id (or the held one's).")
    scope: str = Field(
        "", description="Where it was saved: user:<person> in a direct room, else bot:<bot>."
    )
    reason: str = Field("", description="Why held or refused: instruction, or the rule's code.")
    detail: str = Field("", description="The same, for a person.")


class SourcesOut(Out):
    """Which memories this exchange's report recorded as shaping the reply: three separate
    records, never merged."""

    retrieved: int = Field(
        description="Facts recall returned to this bot in this room just before."
    )
    injected: int = Field(description="Facts in the prompt section the reply was built with.")
    cited: int = Field(description="Facts the bot named in `recalled`.")
    digest: str = Field("", description="The section counted as injected (given or the last).")
    note: str = Field(
        "", description="Why nothing was recorded as injected, when a digest was given."
    )


class ExchangeOut(Out):
    id: str
    status: Literal["queued", "skipped", "done", "failed"] = Field(
        description="queued or skipped when first reported; a repeated report gets the stored "
        "exchange's status now (done, failed too)."
    )
    reason: str = Field(
        "",
        description="Why it was skipped: small_talk, room_kind, paused, guests (someone from "
        "outside the workspace took part) or off (no model: such an exchange is not kept and is "
        "never learned from later).",
    )
    detail: str = Field("", description="What the reason means for this exchange, in words.")
    repeated: bool = Field(
        False, description="These message ids were reported before: this is the stored receipt."
    )
    remembered: list[RememberedOut] = Field(
        default_factory=list,
        description="What the person's own message asked to be remembered ('remember that…', "
        "'keep in mind…'), kept at once whatever the learning mode; the reply is never read "
        "for this, nor quoted or forwarded text.",
    )
    sources: SourcesOut | None = Field(
        None,
        description="Which memories were recorded as shaping this reply (console: memory sources).",
    )

    @classmethod
    def of(cls, receipt: Any) -> "ExchangeOut":
        """A `memstore.learning.submit.ExchangeReceipt`, as the API and MCP send it."""
        return cls(
            id=str(receipt.id),
            status=receipt.status,
            reason=receipt.reason,
            repeated=receipt.repeated,
            remembered=[
                RememberedOut(
                    text=r.text,
                    status=r.status,
                    fact_id=r.fact_id,
                    scope=r.scope,
                    reason=r.reason,
                    detail=r.detail,
                )
                for r in receipt.remembered
            ],
            detail=receipt.detail,
            sources=SourcesOut(
                retrieved=receipt.sources.retrieved,
                injected=receipt.sources.injected,
                cited=receipt.sources.cited,
                digest=receipt.sources.digest,
                note=receipt.sources.note,
            )
            if receipt.sources
            else None,
        )
