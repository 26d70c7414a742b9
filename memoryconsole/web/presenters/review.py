"""How the console shows the review inbox: each proposal's action ("save to about ann
(profile)") and what a decision says.

A part of the console's presenters (`memoryconsole.web.presenters`), kept apart for its size.
Pure: no queries, no file I/O.
"""

from dataclasses import dataclass

from memoryconsole.web.presenters.common import SHORT_CHARS, plural, scope_label
from memstore.console.review import Proposal


@dataclass(frozen=True, slots=True)
class ProposalRow:
    """A proposal as the review inbox shows it."""

    proposal: Proposal
    action: str  # "save to about ann (profile)" / "remove from own"
    short: str  # its text cut for buttons' accessible names


def proposal_rows(proposals: list[Proposal]) -> list[ProposalRow]:
    """The inbox's rows."""
    rows = []
    for p in proposals:
        where = scope_label(p.scope)
        if p.op == "note":
            action = f"change {p.bot}’s About me note"
        elif p.op == "save":
            action = f"save to {where} ({p.tier})"
        else:
            action = f"remove from {where}"
        short = p.text if len(p.text) <= SHORT_CHARS else p.text[: SHORT_CHARS - 1] + "…"
        rows.append(ProposalRow(p, action, short))
    return rows


def reviewed_message(count: int, decision: str) -> str:
    """What the inbox says after a decision."""
    return f"{'Accepted' if decision == 'accepted' else 'Rejected'} {count} {plural(count, 'proposal', 'proposals')}."
