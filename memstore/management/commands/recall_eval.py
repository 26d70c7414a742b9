"""manage.py recall_eval [DATA_DIR] [--modes words,lexical,semantic,hybrid,rerank@20] [--json FILE]

Loads LoCoMo-format data (facts.jsonl, queries.jsonl; by default ../shared/bench/locomo-dev
beside the repository) into a scratch workspace, embeds every fact (facts/s reported), asks
every question through recall, and prints hit@5/10/20 and recall@10 per category plus latency,
for the modes side by side. Nothing stays behind: the memory files go to a temporary folder and
every index row and vector is rolled back at the end. The workspace's sensitive keywords do
not apply to the evaluation's facts (each conversation's bot keeps a private memory); a fact
another content rule refuses is skipped and counted in the report (`skipped`), never a crash.
"""

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
            f"{', '.join(evaluation.RERANK_MODES)} (hybrid, then the bundled reranker on the "
            "fusion's first N)",
        )
        parser.add_argument("--json", type=Path, help="also write the figures here as JSON")

    def handle(self, *args, data_dir: Path | None, modes: str, json: Path | None, **opts) -> None:
        data_dir = data_dir or evaluation.locomo_dev_dir(settings.BASE_DIR)
        if data_dir is None:
            raise CommandError("Name the data folder: ../shared/bench/locomo-dev is not there.")
        chosen = [m.strip() for m in modes.split(",") if m.strip()]
        known = evaluation.MODES + evaluation.RERANK_MODES
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
            embedding = _embed_all()
            report = evaluation.evaluate(workspace, queries, chosen, self._say)
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
