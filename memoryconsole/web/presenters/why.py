"""How the console shows "Why here?" for a search result: one line per part of recall's
breakdown (words, meaning, fusion, boosts, reranker), or where an expected fact fell.

A part of the console's presenters (`memoryconsole.web.presenters`). Pure: no queries.
"""

from dataclasses import dataclass

from django.conf import settings

from memstore.console.why import Why


@dataclass(frozen=True, slots=True)
class WhyLine:
    label: str
    text: str


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def why_lines(why: Why) -> list[WhyLine]:
    """The breakdown as labelled lines, in the order recall worked."""
    if why.unavailable or why.explanation is None:
        return [WhyLine("Unavailable", "The search could not finish in time; try again.")]
    explained = why.explanation
    if why.result is None:
        assert why.expected is not None
        return [WhyLine("Not shown", why.expected.reason)]
    row = why.result
    lines = [WhyLine("Place", f"{ordinal(row.place)} of the results")]
    lines.append(_words_line(why))
    lines.append(_meaning_line(why))
    lines.append(
        WhyLine("Fusion", f"score {row.fusion:.4f} ({ordinal(row.fusion_rank)} after fusion)")
    )
    if row.date_boost:
        days = ", ".join(explained.dates)
        lines.append(WhyLine("Date", f"+{row.date_boost:.4f}: saved around {days}"))
    if reranker := _reranker_line(why):
        lines.append(reranker)
    return lines


def _words_line(why: Why) -> WhyLine:
    # What words found of the result, or that they did not find it.
    row = why.result
    if row.words_rank is None:
        return WhyLine("Words", "not found by words")
    shared = ", ".join(row.terms) or "no term of the query as such"
    return WhyLine(
        "Words",
        f"shares {shared}; word score {row.words:.2f} ({ordinal(row.words_rank)} by words)",
    )


def _meaning_line(why: Why) -> WhyLine:
    # How close in meaning the result was, or why meaning did not find it.
    row, cosine_floor = why.result, why.explanation.cosine_floor
    if row.cosine is not None:
        floor = f"; the floor was {cosine_floor:.3f}" if cosine_floor is not None else ""
        return WhyLine(
            "Meaning",
            f"cosine {row.cosine:.3f} ({ordinal(row.meaning_rank or 0)} by meaning{floor})",
        )
    if cosine_floor is None:
        return WhyLine("Meaning", "not searched (no embedding model)")
    return WhyLine("Meaning", f"not among the hits above the floor ({cosine_floor:.3f})")


def _reranker_line(why: Why) -> WhyLine | None:
    # What the reranker made of the result, or why it did not see it (None: reranking is off).
    row = why.result
    if row.rerank_rank is not None:
        return WhyLine(
            "Reranker",
            f"score {row.rerank_score:.2f} ({ordinal(row.rerank_rank)} by the reranker, "
            "blended with its fusion place)",
        )
    if row.rerank_kept:
        return WhyLine("Reranker", "not sent to the reranker: kept its fusion place")
    if settings.RECALL_RERANK != "off":
        return WhyLine(
            "Reranker",
            "not used here: the console shows the fusion's order "
            f"(the bots' recall reranks, RECALL_RERANK={settings.RECALL_RERANK})",
        )
    return None
