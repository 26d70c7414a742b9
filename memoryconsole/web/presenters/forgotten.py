"""How a recently forgotten fact is shown: "Booked the venue · ava · forgotten 2026-11-30 by ann"."""

from dataclasses import dataclass

from memoryconsole.web.presenters.common import origin
from memstore.console.forgotten_recently import Forgotten


@dataclass(frozen=True, slots=True)
class ForgottenView:
    """One line of "Forgotten in the last 30 days"."""

    item: Forgotten
    when: str  # "2026-11-30 22:10 UTC"
    who: str  # "by ann (console)"


def forgotten_view(item: Forgotten) -> ForgottenView:
    """The line for one removal."""
    return ForgottenView(
        item=item,
        when=item.at[:16].replace("T", " ") + " UTC",
        who=origin(item.by, item.via) or "by someone",
    )
