"""`manage.py recall`: ask recall why, from the shell (Basic Memory's `bm inspect query`).

    recall explain BOT QUERY [--room-kind routine|group|direct] [--person NAME]
                             [--project SLUG ...] [--limit N] [--expect ID_OR_TEXT ...]
                             [--rerank | --no-rerank]

Runs the recall the API runs for BOT in that room (a routine room by default: the bot's own
memory; `--room-kind direct --person NAME` adds the person's) with explain, and prints per
result the query words it holds and its word score, its cosine, each list's rank, the fusion
score and the boosts; then the floors; then, for each `--expect`, where it fell and why.
"""

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.recall import recall_search
from memstore.rooms.context import context_open


class Command(BaseCommand):
    help = "Explain a recall: why each result came where it did, and where expected facts fell."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        explain = actions.add_parser("explain", help="why each result came where it did")
        explain.add_argument("bot")
        explain.add_argument("query")
        explain.add_argument(
            "--room-kind", default="routine", choices=("routine", "group", "direct")
        )
        explain.add_argument("--room", default="cli", help="the room id (default: cli)")
        explain.add_argument("--person", help="the person of a direct room")
        explain.add_argument("--project", action="append", default=[], help="a project in play")
        explain.add_argument("--limit", type=int, default=10)
        explain.add_argument(
            "--expect", action="append", default=[], help="a fact id or text you expected"
        )
        rerank = explain.add_mutually_exclusive_group()
        rerank.add_argument("--rerank", dest="rerank", action="store_true", default=None)
        rerank.add_argument("--no-rerank", dest="rerank", action="store_false")

    def handle(self, *args, action: str, **opts):
        try:
            ctx = context_open(
                bot=opts["bot"],
                room_id=opts["room"],
                room_kind=opts["room_kind"],
                person=opts["person"],
                projects=opts["project"],
            )
            result = recall_search(
                ctx=ctx,
                query=opts["query"],
                limit=opts["limit"],
                rerank=opts["rerank"],
                explain=True,
                expect=opts["expect"],
            )
        except MemstoreError as error:
            raise CommandError(str(error)) from error
        self.stdout.write("\n".join(explain_lines(result)))


def explain_lines(result) -> list[str]:
    """The explanation as plain text lines."""
    why = result.explain
    lines = [f"mode: {result.mode}" + (f" — {result.note}" if result.note else "")]
    if why is None:
        return [*lines, "(no breakdown)"]
    floor = "none (no meaning searched)" if why.cosine_floor is None else f"{why.cosine_floor:.3f}"
    lines.append(f"terms: {', '.join(why.terms) or '(none)'}")
    lines.append(
        f"floors: cosine {floor}; a word match meaning does not support needs "
        f"{why.words_floor:.0%} of the query's word weight"
    )
    if why.dates:
        lines.append(f"dates named: {', '.join(why.dates)}")
    lines.append(f"reranker: {why.reranker or 'off'}{' (applied)' if why.reranked else ''}")
    texts = {fact.fact_id: fact.text for fact in result.items}
    for row in why.results:
        cosine = "—" if row.cosine is None else f"{row.cosine:.3f} (#{row.meaning_rank})"
        words = "—" if row.words_rank is None else f"{row.words:.3f} (#{row.words_rank})"
        parts = [
            f"{row.place:>2}. {texts.get(row.fact_id, '')}  [{row.fact_id}]",
            f"    words {words} on {', '.join(row.terms) or '—'}; cosine {cosine}; "
            f"fusion {row.fusion:.4f} (#{row.fusion_rank})",
        ]
        boosts = []
        if row.date_boost:
            boosts.append(f"date +{row.date_boost:.4f}")
        if row.rerank_rank is not None:
            boosts.append(f"rerank {row.rerank_score:.3f} (#{row.rerank_rank})")
        elif row.rerank_kept:
            boosts.append("kept its place (not sent to the reranker)")
        if boosts:
            parts.append(f"    {'; '.join(boosts)}")
        lines += parts
    if not why.results:
        lines.append("(no results)")
    for expected in why.expected:
        place = f"place {expected.place}" if expected.place else "not shown"
        lines.append(f"expected {expected.expected!r}: {place}. {expected.reason}")
    return lines
