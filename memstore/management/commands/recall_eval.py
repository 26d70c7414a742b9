"""manage.py recall_eval DATA_DIR [--modes words,lexical,semantic,hybrid] [--json FILE]

Loads LoCoMo-format data (facts.jsonl, queries.jsonl) into a scratch workspace, asks every
question through recall, and prints hit@5/10/20 and recall@10 per category plus latency, for
the modes side by side. Nothing stays behind: the memory files go to a temporary folder and
every index row is rolled back at the end.
"""

import json
import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.test.utils import override_settings

from memstore.recall import evaluation


class Command(BaseCommand):
    help = "Measure recall on LoCoMo-format data: hit@k and recall@10 per mode and category."

    def add_arguments(self, parser) -> None:
        parser.add_argument("data_dir", type=Path, help="folder with facts.jsonl, queries.jsonl")
        parser.add_argument(
            "--modes",
            default=",".join(evaluation.MODES),
            help=f"comma-separated, from {', '.join(evaluation.MODES)} (default: all)",
        )
        parser.add_argument("--json", type=Path, help="also write the figures here as JSON")

    def handle(self, *args, data_dir: Path, modes: str, json: Path | None, **options) -> None:
        chosen = [m.strip() for m in modes.split(",") if m.strip()]
        unknown = sorted(set(chosen) - set(evaluation.MODES))
        if unknown or not chosen:
            raise CommandError(f"Unknown mode(s) {unknown}; choose from {evaluation.MODES}.")
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
            report = evaluation.evaluate(workspace, queries, chosen, self._say)
            transaction.set_rollback(True)  # the scratch workspace leaves no index rows behind

        report["data"] = str(data_dir)
        self.stdout.write(evaluation.report_table(report))
        if json is not None:
            json.write_text(_dumps(report) + "\n", encoding="utf-8")
            self._say(f"figures written to {json}")

    def _say(self, message: str) -> None:
        self.stderr.write(message)


def _dumps(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True)
