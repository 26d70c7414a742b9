"""`manage.py reindex`: drop the index and rebuild it from the Markdown files under MEMORY_ROOT."""

import time

from django.core.management.base import BaseCommand

from memstore.facts.paths import memory_root
from memstore.index import index_rebuild
from memstore.management.progress import ProgressBar


class Command(BaseCommand):
    help = "Rebuild the memory index from the Markdown files (the files are the truth)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch", type=int, default=500, help="files read per batch (default 500)"
        )

    def handle(self, *args, batch: int, **options):
        started = time.monotonic()
        bar = ProgressBar(unit="files", stream=self.stderr._out)
        self.stderr.write(f"Reading {memory_root()}")
        phases = {
            "indexing": "Building the search and lookup indexes…",
            "indexing partial words": "Building the partial-word index (reads go on meanwhile)…",
        }
        report = index_rebuild(
            progress=bar.update,
            batch=batch,
            on_phase=lambda phase: phase in phases and bar.note(phases[phase]),
        )
        bar.finish()
        seconds = time.monotonic() - started
        self.stdout.write(
            f"Indexed {_count(report.files, 'file')}, {_count(report.facts, 'fact')} in "
            f"{seconds:.1f} s ({_count(report.unreadable, 'unreadable file')})."
        )
        for folder in report.misnamed:
            self.stdout.write(f"Not read: {folder.path}: {folder.reason}")
        if report.unreadable:
            self.stdout.write(
                "Unreadable files are not valid UTF-8: their facts are shown with U+FFFD and "
                "writes to them are refused until they are re-saved as UTF-8."
            )


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
