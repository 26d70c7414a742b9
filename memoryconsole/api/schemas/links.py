"""Request and response shapes of the links endpoints (`memoryconsole.api.routers.links`)."""

from ninja import Schema
from pydantic import Field

from memoryconsole.api.schemas import FACT_ID, FactOut, LinkOut, Out, StrictIn
from memstore.calls.links import Neighbourhood
from memstore.vocabulary import LinkKind


class LinkIn(StrictIn):
    """A link from the fact in the path to another fact."""

    kind: LinkKind
    target: str = Field(pattern=FACT_ID, description="The linked fact's id.")


class LinksOut(Out):
    """The fact's links after the change (at most 7 fit in a line's metadata)."""

    id: str
    links: list[LinkOut]


class NeighbourhoodOut(Out):
    """Links touching the facts asked about (both ways) and the readable facts at their ends;
    a link end missing from `facts` was archived or is not readable here."""

    links: list[LinkOut]
    facts: list[FactOut]

    @staticmethod
    def of(near: Neighbourhood) -> "NeighbourhoodOut":
        return NeighbourhoodOut(
            links=[LinkOut(source=e.source, kind=e.kind, target=e.target) for e in near.edges],
            facts=[FactOut.of(near.facts[fid]) for fid in sorted(near.facts)],
        )


class DepthQuery(Schema):
    depth: int = Field(1, ge=1, le=3, description="How many hops to follow.")
