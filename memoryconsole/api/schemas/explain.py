"""Why recall answered what it did, as the API says it: the `explain` breakdown and which tier
of meaning served (`meaning`, `tiers`)."""

from typing import Any, Literal

from ninja import Field

from memoryconsole.api.schemas.base import Out

Meaning = Literal["full", "static", "mixed", "words"]
MEANING_DOC = (
    "Which tier of meaning served: full (every fact searched had its full vector), static (none "
    "had yet: a quicker first tier ranked them), mixed (some of each, or some facts by words "
    "only), words (meaning served no fact)."
)
TIERS_DOC = "How many of the searched facts each tier judged."


class TiersOut(Out):
    """How many searched facts each tier of meaning judged."""

    full: int = Field(0, description="Facts with their full vector.")
    static: int = Field(0, description="Facts waiting for it, judged by the quicker first tier.")
    words: int = Field(0, description="Facts waiting for it, found by their words only.")

    @classmethod
    def of(cls, tiers: Any) -> "TiersOut":
        if tiers is None:
            return cls()
        return cls(full=tiers.full, static=tiers.static, words=tiers.words)


class ResultWhyOut(Out):
    """Why one result came where it did."""

    id: str
    place: int = Field(description="1: the first result.")
    terms: list[str] = Field(description="The query's search terms this fact holds.")
    words: float = Field(description="Its BM25-like word score (0: not found by words).")
    words_rank: int | None = Field(description="Its place in the words' list.")
    cosine: float | None = Field(description="Its similarity to the query (null: not by meaning).")
    meaning_rank: int | None = Field(description="Its place in the meaning's list.")
    fusion: float = Field(description="The fused score (reciprocal ranks, date boost included).")
    fusion_rank: int
    date_boost: float = Field(description="What a date the query names added to the score.")
    rerank_score: float | None = Field(description="The reranker's score (null: not reranked).")
    rerank_rank: int | None
    rerank_kept: bool = Field(
        description="Not sent to a remote reranker (private, user or hidden): kept its place."
    )
    static_cosine: float | None = Field(
        None,
        description="Still waiting for its full vector: its similarity by the quicker first "
        "tier of meaning (null: not found by it).",
    )
    static_rank: int | None = Field(None, description="Its place in that tier's list.")
    capped: bool = Field(
        False,
        description="Shares no word with the query and clears the meaning floor only narrowly: "
        "held below the best word match, which still waits for its meaning.",
    )


class ExpectedWhyOut(Out):
    """Where an expected fact fell, and why."""

    expected: str
    id: str | None = Field(description="null when the fact is not visible to this room.")
    text: str | None
    place: int | None = Field(description="Its place in the results; null: not shown.")
    reason: str


class ExplainOut(Out):
    """The breakdown of one recall."""

    terms: list[str] = Field(description="The query's search terms (stems; quoted: exact words).")
    cosine_floor: float | None = Field(description="The cosine a hit by meaning had to reach.")
    words_floor: float = Field(
        description="The share of the query's word weight a word match needs without meaning."
    )
    dates: list[str] = Field(description="Dates the query names (their facts get a boost).")
    reranker: str | None
    reranked: bool
    results: list[ResultWhyOut]
    expected: list[ExpectedWhyOut]
    meaning: Meaning = Field("words", description=MEANING_DOC)
    tiers: TiersOut = Field(default_factory=lambda: TiersOut(), description=TIERS_DOC)
    static_floor: float | None = Field(
        None, description="The similarity a waiting fact needed by the quicker first tier."
    )

    @classmethod
    def of(cls, why: Any) -> "ExplainOut":
        return cls(
            meaning=why.meaning,
            tiers=TiersOut.of(why.tiers),
            static_floor=why.static_floor,
            terms=why.terms,
            cosine_floor=why.cosine_floor,
            words_floor=why.words_floor,
            dates=why.dates,
            reranker=why.reranker,
            reranked=why.reranked,
            results=[
                ResultWhyOut(
                    id=r.fact_id,
                    place=r.place,
                    terms=r.terms,
                    words=r.words,
                    words_rank=r.words_rank,
                    cosine=r.cosine,
                    meaning_rank=r.meaning_rank,
                    fusion=r.fusion,
                    fusion_rank=r.fusion_rank,
                    date_boost=r.date_boost,
                    rerank_score=r.rerank_score,
                    rerank_rank=r.rerank_rank,
                    rerank_kept=r.rerank_kept,
                    static_cosine=r.static_cosine,
                    static_rank=r.static_rank,
                    capped=r.capped,
                )
                for r in why.results
            ],
            expected=[
                ExpectedWhyOut(
                    expected=e.expected, id=e.fact_id, text=e.text, place=e.place, reason=e.reason
                )
                for e in why.expected
            ],
        )
