"""Retrieval evaluation on LoCoMo-format data: what `manage.py recall_eval` runs.

Loads a folder holding `facts.jsonl` and `queries.jsonl` (the format of the LoCoMo dev split
described in its README) into the current MEMORY_ROOT as real Markdown memory, one bot per
conversation, through `fact_remember`; then asks every question through `recall_search` (the
code the API calls) or the reference word search, and scores hit@k and recall@10 per category.

The data is read, never copied: the caller points at a scratch MEMORY_ROOT and throws it away.
Each conversation's bot is registered as keeping a private memory (in the caller's scratch
transaction): its memory is one person's conversation, so the workspace's sensitive keywords,
which keep text out of shared memory, do not apply, and a fact holding one loads like any
other. A fact another content rule refuses (it looks like a secret, a person's excluded topic)
is skipped and counted (`Workspace.skipped`), never a crash.
"""

import json
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from django.conf import settings
from django.test.utils import override_settings

from memstore.errors import InvalidName, MemstoreError
from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact
from memstore.recall.search import recall_search
from memstore.recall.words import words_search
from memstore.registry.bots import bot_create, bot_private_set
from memstore.rooms.access import Context, readable_scopes, visible
from memstore.rooms.context import context_open
from memstore.store.selectors import facts_list
from memstore.store.services import fact_remember

MODES = ("words", "lexical", "semantic", "hybrid")
# Hybrid with the bundled cross-encoder on the fusion's first N ("rerank" alone: the default N);
# asked for by name, not part of the default set. The time budget is lifted so a busy machine
# measures the reranker's quality, not its fallback; the latency columns show its cost.
# "late" (and late@N): the same with the bundled late-interaction reranker (RECALL_RERANK=late).
RERANK_MODES = ("rerank", "rerank@10", "rerank@20", "rerank@30", "late", "late@10", "late@20")
RERANK_EVAL_TIMEOUT_MS = 60_000
LOCOMO_DEV = Path("shared", "bench", "locomo-dev")  # beside the repository
KS = (5, 10, 20)

Progress = Callable[[str], None]


def locomo_dev_dir(repo: Path) -> Path | None:
    """`../shared/bench/locomo-dev` beside the repository, or beside the main checkout when
    `repo` is a git worktree of it; None when it is in neither place."""
    roots = [repo.parent]
    git = repo / ".git"
    if git.is_file():  # a worktree: "gitdir: <main checkout>/.git/worktrees/<name>"
        gitdir = Path(git.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        roots.append(gitdir.parent.parent.parent.parent)
    for root in roots:
        if (root / LOCOMO_DEV / "facts.jsonl").is_file():
            return root / LOCOMO_DEV
    return None


@dataclass(frozen=True, slots=True)
class EvalFact:
    conv_id: str
    day: date
    text: str
    evidence: frozenset[str]


@dataclass(frozen=True, slots=True)
class EvalQuery:
    qid: str
    conv_id: str
    question: str
    category: str
    evidence: frozenset[str]


def dataset_load(folder: Path) -> tuple[list[EvalFact], list[EvalQuery]]:
    """Facts and the scored queries (category 5 and queries without evidence left out)."""
    facts = []
    for line in (folder / "facts.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        facts.append(
            EvalFact(
                conv_id=row["conv_id"],
                day=date.fromisoformat(row["date"]),
                text=" ".join(row["text"].split()),
                evidence=frozenset(row["evidence"]),
            )
        )
    queries = []
    for line in (folder / "queries.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        if row["category"] == 5 or not row["evidence"]:
            continue
        queries.append(
            EvalQuery(
                qid=row["qid"],
                conv_id=row["conv_id"],
                question=row["question"],
                category=f"{row['category']} {row.get('category_name', '')}".strip(),
                evidence=frozenset(row["evidence"]),
            )
        )
    return facts, queries


def bot_slug(conv_id: str) -> str:
    """A valid bot slug for a conversation id."""
    slug = re.sub(r"[^a-z0-9-]+", "-", conv_id.lower()).strip("-")
    return slug[:63] or "conv"


@dataclass(slots=True)
class Workspace:
    """The loaded conversations: each one's bot and the evidence each stored fact cites."""

    bots: dict[str, str] = field(default_factory=dict)  # conv_id -> bot slug
    evidence: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # conv -> id -> ids
    skipped: dict[str, int] = field(default_factory=dict)  # refusal code -> facts not loaded


def workspace_load(facts: list[EvalFact], progress: Progress) -> Workspace:
    """Write every fact into its conversation's bot memory (a private one) as a dated log
    line; facts a content rule refuses are skipped and counted."""
    workspace = Workspace()
    by_conv: dict[str, list[EvalFact]] = defaultdict(list)
    for fact in facts:
        by_conv[fact.conv_id].append(fact)
    for conv_id, conv_facts in by_conv.items():
        bot = bot_slug(conv_id)
        workspace.bots[conv_id] = bot
        cited = workspace.evidence.setdefault(conv_id, defaultdict(set))
        with suppress(InvalidName):  # registered already (a bot of the workspace's own)
            bot_create(slug=bot)
        bot_private_set(bot=bot, private=True)
        shard = Scope("bot", bot).shard(bot)
        written = 0
        for fact in conv_facts:
            try:
                fact_remember(
                    shard=shard, text=fact.text, day=fact.day, by="recall-eval", via="import"
                )
            except MemstoreError as refused:
                workspace.skipped[refused.code] = workspace.skipped.get(refused.code, 0) + 1
                continue
            written += 1
            cited[fact_identity(fact.text)] |= fact.evidence
        progress(f"{conv_id}: wrote {written} of {len(conv_facts)} facts to bot {bot!r}")
    if workspace.skipped:
        counts = ", ".join(f"{n} {code}" for code, n in sorted(workspace.skipped.items()))
        progress(f"skipped facts a content rule refuses: {counts}")
    return workspace


def context_of(bot: str) -> Context:
    """A routine room: the bot reads only its own memory."""
    return context_open(bot=bot, room_id="recall-eval", room_kind="routine", joined=())


def search(mode: str, ctx: Context, question: str, limit: int = max(KS)) -> list[StoredFact]:
    """The facts one mode returns for a question, best first."""
    if mode == "words":
        scopes = readable_scopes(ctx)
        page = facts_list(scopes=scopes, visible=visible(ctx), limit=1_000_000)
        found = words_search(page.items, question)
        # The reference design's cap: 20 facts within 4,000 characters.
        kept, used = [], 0
        for fact in found[:limit]:
            if used + len(fact.text) > 4000:
                break
            kept.append(fact)
            used += len(fact.text)
        return kept
    if mode.startswith(("rerank", "late")):
        top_n = int(mode.partition("@")[2] or settings.RECALL_RERANK_TOP_N)
        with override_settings(
            RECALL_RERANK="late" if mode.startswith("late") else "local",
            RECALL_RERANK_TOP_N=top_n,
            RECALL_RERANK_TIMEOUT_MS=RERANK_EVAL_TIMEOUT_MS,
        ):
            return recall_search(ctx=ctx, query=question, limit=limit, mode="hybrid").items
    return recall_search(ctx=ctx, query=question, limit=limit, mode=mode).items


@dataclass(slots=True)
class Tally:
    """Running sums for one group of queries."""

    queries: int = 0
    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    recall10: float = 0.0

    def add(self, found: list[set[str]], wanted: frozenset[str]) -> None:
        self.queries += 1
        for k in KS:
            self.hits[k] += any(wanted & cited for cited in found[:k])
        covered = set().union(*found[:10]) & wanted if found else set()
        self.recall10 += len(covered) / len(wanted)

    def summary(self) -> dict:
        n = max(self.queries, 1)
        return {
            "queries": self.queries,
            **{f"hit@{k}": round(100 * self.hits[k] / n, 1) for k in KS},
            "recall@10": round(100 * self.recall10 / n, 1),
        }


def evaluate(
    workspace: Workspace, queries: list[EvalQuery], modes: list[str], progress: Progress
) -> dict:
    """Ask every query in every mode; figures per mode, overall and per category."""
    report: dict = {"queries": len(queries), "modes": {}}
    for mode in modes:
        for bot in workspace.bots.values():
            search(mode, context_of(bot), "warm up")  # loads models and vectors: not timed
        overall, by_category = Tally(), defaultdict(Tally)
        millis: list[float] = []
        for i, query in enumerate(queries, start=1):
            ctx = context_of(workspace.bots[query.conv_id])
            start = time.perf_counter()
            found = search(mode, ctx, query.question)
            millis.append((time.perf_counter() - start) * 1000)
            cited = workspace.evidence[query.conv_id]
            found_ids = [cited.get(fact.fact_id, set()) for fact in found]
            overall.add(found_ids, query.evidence)
            by_category[query.category].add(found_ids, query.evidence)
            if i % 50 == 0 or i == len(queries):
                progress(f"{mode}: {i}/{len(queries)} queries")
        report["modes"][mode] = {
            "overall": overall.summary(),
            "by_category": {name: by_category[name].summary() for name in sorted(by_category)},
            "latency_ms": {
                "p50": round(statistics.median(millis), 2),
                "p95": round(statistics.quantiles(millis, n=20)[18], 2),
            },
        }
    return report


def report_table(report: dict) -> str:
    """The report as a Markdown table: one row per mode and group."""
    lines = [
        "| mode | group | queries | hit@5 | hit@10 | hit@20 | recall@10 | p50 ms | p95 ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for mode, figures in report["modes"].items():
        groups = [("overall", figures["overall"]), *figures["by_category"].items()]
        latency = figures["latency_ms"]
        for name, row in groups:
            timing = f"{latency['p50']:.1f} | {latency['p95']:.1f}" if name == "overall" else " | "
            lines.append(
                f"| {mode} | {name} | {row['queries']} | {row['hit@5']:.1f} | "
                f"{row['hit@10']:.1f} | {row['hit@20']:.1f} | {row['recall@10']:.1f} | {timing} |"
            )
    return "\n".join(lines)
