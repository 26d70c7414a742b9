"""manage.py recall_static: distil the static tier's token table from the bundled model now,
and give every fact still waiting for its vector a static one.

The worker distils the table on first need (about 2 minutes of one core, once per model file);
this command does it up front, e.g. before a large import, with a progress bar. The table is
cached in RECALL_STATIC_DIR under a name carrying the model file's SHA-256, so running it again
only fills the static vectors of facts that wait (thousands a second).
"""

import time

from django.conf import settings
from django.core.management.base import BaseCommand

from memstore.facts.paths import all_scopes, memory_root
from memstore.index import index_sync
from memstore.management.progress import ProgressBar
from memstore.recall.backfill import backfill_run, backfill_state
from memstore.recall.jobs import STATIC_CHUNK
from memstore.recall.tiers import static_current
from memstore.recall.vectors import embedder_current


class Command(BaseCommand):
    help = "Distil the static tier's table (once) and fill the static vectors of waiting facts."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--threads",
            type=int,
            default=settings.EMBEDDINGS_BACKFILL_THREADS,
            help="threads that distil at once (the same table whatever the number)",
        )

    def handle(self, *args, threads: int, **options) -> None:
        full = embedder_current()
        if static_current(full) is None:
            self.stderr.write(f"Distilling the static tier on {threads} thread(s) ...")
        start = time.perf_counter()
        static = static_current(full, build=True, threads=max(1, threads))
        if static is None:
            self.stderr.write("Only the bundled model has a static tier (or RECALL_STATIC=0).")
            return
        self.stdout.write(f"static tier {static.name} ready in {time.perf_counter() - start:.1f} s")
        index_sync(scopes=all_scopes(memory_root()))
        waiting = backfill_state(embedder=full).waiting
        bar = ProgressBar(unit="facts", stream=self.stderr)
        start = time.perf_counter()
        report = backfill_run(
            embedder=static,
            chunk=STATIC_CHUNK,
            unless=full.name,
            progress=lambda done: bar.update(done, max(done, waiting)),
        )
        bar.finish()
        seconds = time.perf_counter() - start
        self.stdout.write(f"{report.embedded} static vectors in {seconds:.1f} s")
