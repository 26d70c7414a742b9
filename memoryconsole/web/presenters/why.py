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
    if row.words_rank is not None:
        shared = ", ".join(row.terms) or "no term of the query as such"
        lines.append(
            WhyLine(
                "Words",
                f"shares {shared}; word score {row.words:.2f} ({ordinal(row.words_rank)} by words)",
            )
        )
    else:
        lines.append(WhyLine("Words", "not found by words"))
    if row.cosine is not None:
        floor = (
            f"; the floor was {explained.cosine_floor:.3f}"
            if explained.cosine_floor is not None
            else ""
        )
        lines.append(
            WhyLine(
                "Meaning",
                f"cosine {row.cosine:.3f} ({ordinal(row.meaning_rank or 0)} by meaning{floor})",
            )
        )
    elif explained.cosine_floor is None:
        lines.append(WhyLine("Meaning", "not searched (no embedding model)"))
    else:
        lines.append(
            WhyLine("Meaning", f"not among the hits above the floor ({explained.cosine_floor:.3f})")
        )
    lines.append(
        WhyLine("Fusion", f"score {row.fusion:.4f} ({ordinal(row.fusion_rank)} after fusion)")
    )
    if row.date_boost:
        days = ", ".join(explained.dates)
        lines.append(WhyLine("Date", f"+{row.date_boost:.4f}: saved around {days}"))
    if row.rerank_rank is not None:
        lines.append(
            WhyLine(
                "Reranker",
                f"score {row.rerank_score:.2f} ({ordinal(row.rerank_rank)} by the reranker, "
                "blended with its fusion place)",
            )
        )
    elif row.rerank_kept:
        lines.append(WhyLine("Reranker", "not sent to the reranker: kept its fusion place"))
    elif settings.RECALL_RERANK != "off":
        lines.append(
            WhyLine(
                "Reranker",
                "not used here: the console shows the fusion's order "
                f"(the bots' recall reranks, RECALL_RERANK={settings.RECALL_RERANK})",
            )
        )
    return lines
