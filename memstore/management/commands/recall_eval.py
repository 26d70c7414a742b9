"""manage.py recall_eval [DATA_DIR] [--modes words,lexical,semantic,hybrid,rerank@20,late@20] [--json FILE]
        [--modes static,half,half-words,words,hybrid]

Loads LoCoMo-format data (facts.jsonl, queries.jsonl; by default ../shared/bench/locomo-dev
beside the repository) into a scratch workspace, embeds every fact (facts/s reported), asks
every question through recall, and prints hit@5/10/20 and recall@10 per category plus latency,
for the modes side by side. The static tier's modes are asked before the full vectors exist:
`static` (every fact still waiting, each with its static vector: hybrid search over words and
the static tier), `half` (half the facts, by identity, with their full vector, the rest static)
and `half-words` (the same half, the rest by words only: the static tier off). Nothing stays behind: the memory files go to a temporary folder and
every index row and vector is rolled back at the end. The workspace's sensitive keywords do
not apply to the evaluation's facts (each conversation's bot keeps a private memory); a fact
another content rule refuses is skipped and counted in the report (`skipped`), never a crash.
"""

import hashlib
import json
import tempfile
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.test.utils import override_settings

from memstore.models import Fact
from memstore.recall import evaluation
from memstore.recall.backfill import backfill_run
from memstore.recall.tiers import static_current
from memstore.recall.vectors import embedder_current, vectors_ensure


class Command(BaseCommand):
    help = "Measure recall on LoCoMo-format data: hit@k and recall@10 per mode and category."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "data_dir",
            type=Path,
            nargs="?",
            help="folder with facts.jsonl, queries.jsonl (default: ../shared/bench/locomo-dev)",
        )
        parser.add_argument(
            "--modes",
            default=",".join(evaluation.MODES),
            help=f"comma-separated, from {', '.join(evaluation.MODES)} (default: all), or "
            f"{', '.join(evaluation.RERANK_MODES)} (hybrid, then a bundled reranker on the "
            "fusion's first N: rerank the cross-encoder, late the late-interaction one)",
        )
        parser.add_argument("--json", type=Path, help="also write the figures here as JSON")

    def handle(self, *args, data_dir: Path | None, modes: str, json: Path | None, **opts) -> None:
        data_dir = data_dir or evaluation.locomo_dev_dir(settings.BASE_DIR)
        if data_dir is None:
            raise CommandError("Name the data folder: ../shared/bench/locomo-dev is not there.")
        chosen = [m.strip() for m in modes.split(",") if m.strip()]
        known = evaluation.MODES + evaluation.RERANK_MODES + STATIC_MODES
        unknown = sorted(set(chosen) - set(known))
        if unknown or not chosen:
            raise CommandError(f"Unknown mode(s) {unknown}; choose from {', '.join(known)}.")
        if not (data_dir / "facts.jsonl").is_file() or not (data_dir / "queries.jsonl").is_file():
            raise CommandError(f"{data_dir} must hold facts.jsonl and queries.jsonl.")
        facts, queries = evaluation.dataset_load(data_dir)
        self._say(f"{len(facts)} facts, {len(queries)} scored queries from {data_dir}")

        with (
            tempfile.TemporaryDirectory(prefix="recall-eval-") as root,
            override_settings(MEMORY_ROOT=Path(root)),
            transaction.atomic(),
        ):
            start = time.perf_counter()
            workspace = evaluation.workspace_load(facts, self._say)
            self._say(f"workspace written and indexed in {time.perf_counter() - start:.1f} s")
            early = [m for m in chosen if m in STATIC_MODES]
            waiting = _static_modes(workspace, queries, early, self._say) if early else {}
            embedding = _embed_all()
            later = [m for m in chosen if m not in STATIC_MODES]
            report = evaluation.evaluate(workspace, queries, later, self._say)
            report["modes"] = {**waiting, **report["modes"]}
            report["embedding"] = embedding
            report["skipped"] = workspace.skipped
            transaction.set_rollback(True)  # the scratch workspace leaves no index rows behind

        report["data"] = str(data_dir)
        self.stdout.write(evaluation.report_table(report))
        if embedding["facts"]:
            self.stdout.write(
                f"\n{embedding['facts']} facts embedded by {embedding['model']} at "
                f"{embedding['facts_per_s']:.0f} facts/s"
            )
        if json is not None:
            json.write_text(_dumps(report) + "\n", encoding="utf-8")
            self._say(f"figures written to {json}")

    def _say(self, message: str) -> None:
        self.stderr.write(message)


STATIC_MODES = ("static", "half", "half-words")


def _static_modes(workspace, queries, modes: list[str], say) -> dict:
    """The static tier's modes, before the full vectors exist (see the module docstring)."""
    full = embedder_current()
    static = static_current(full, build=True)
    if static is None:
        raise CommandError("The static tier needs the bundled model (and RECALL_STATIC on).")
    start = time.perf_counter()
    made = backfill_run(embedder=static, chunk=2000, unless=full.name).embedded
    say(f"{made} static vectors in {time.perf_counter() - start:.2f} s ({static.name})")
    found = {}
    if "static" in modes:
        found |= evaluation.evaluate(workspace, queries, ["hybrid"], say)["modes"]
        found["static"] = found.pop("hybrid")
    if not {"half", "half-words"} & set(modes):
        return found
    ids = Fact.objects.order_by("fact_id").values_list("fact_id", "text")
    half = {i: t for i, t in ids if int(hashlib.sha1(i.encode()).hexdigest()[:8], 16) % 2 == 0}
    vectors_ensure(half, embedder=full)
    say(f"{len(half)} of {ids.count()} facts given their full vector")
    for mode in [m for m in ("half", "half-words") if m in modes]:
        with override_settings(RECALL_STATIC=mode == "half"):
            found[mode] = evaluation.evaluate(workspace, queries, ["hybrid"], say)["modes"][
                "hybrid"
            ]
    return found


def _embed_all() -> dict:
    """Embed every fact of the scratch workspace up front (so query latency excludes it)."""
    embedder = embedder_current()
    if embedder is None:
        return {"model": None, "facts": 0, "facts_per_s": 0.0}
    texts = dict(Fact.objects.order_by("fact_id").values_list("fact_id", "text"))
    start = time.perf_counter()
    done = vectors_ensure(texts, embedder=embedder)
    seconds = time.perf_counter() - start
    return {"model": embedder.name, "facts": done, "facts_per_s": done / max(seconds, 1e-9)}


def _dumps(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True)
