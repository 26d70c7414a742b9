"""Request and response shapes of feedback on a fact."""

from ninja import Field

from memoryconsole.api.schemas.base import Out, StrictIn
from memoryconsole.api.schemas.facts import FactOut
from memstore.calls.feedback import FeedbackGiven
from memstore.vocabulary import Feedback

FEEDBACK_HELP = (
    "useful: it is still true (the line gets checked=today and ranks a little higher); "
    "outdated: a person should look (mark=outdated, listed in Health); wrong, do-not-use: it "
    "leaves prompts and recall at once and goes to review (mark=, review=today) until a person "
    "confirms it in the console."
)


class FeedbackIn(StrictIn):
    """What the bot says about a fact it used."""

    verb: Feedback = Field(description=FEEDBACK_HELP)


class FeedbackOut(Out):
    """The feedback written: the fact as it reads now and how many copies were marked."""

    verb: Feedback
    fact: FactOut
    copies: int = Field(description="Copies of the fact marked (one per shard holding it).")

    @classmethod
    def of(cls, given: FeedbackGiven) -> "FeedbackOut":
        return cls(verb=given.verb, fact=FactOut.of(given.fact), copies=given.copies)
