"""manage.py recall_embed: compute, with a progress bar, the vectors of every indexed fact that
has none yet.

The worker does this in the background after every change (`memstore.recall.jobs`); this
command is for bulk runs, e.g. after a large import, to have every fact searchable by meaning
before the worker would get there. Vectors are cached by fact identity and by how they were
made (the model's name), so running it again only embeds what is new. `--threads 2` embeds on
two threads at once (the same vectors, see `vectors_ensure`).
"""

import time

from django.conf import settings
from django.core.management.base import BaseCommand

from memstore.facts.paths import all_scopes, memory_root
from memstore.index import index_sync
from memstore.management.progress import ProgressBar
from memstore.recall.backfill import backfill_run, backfill_state
from memstore.recall.vectors import embedder_current


class Command(BaseCommand):
    help = "Embed every indexed fact that has no vector yet under the configured model."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--threads",
            type=int,
            default=settings.EMBEDDINGS_BACKFILL_THREADS,
            help="threads that embed at once (default EMBEDDINGS_BACKFILL_THREADS)",
        )

    def handle(self, *args, threads: int, **options) -> None:
        embedder = embedder_current()
        if embedder is None:
            self.stderr.write("No embedding model configured or installed: nothing to do.")
            return
        index_sync(scopes=all_scopes(memory_root()))
        state = backfill_state(embedder=embedder)
        bar = ProgressBar(unit="facts", stream=self.stderr)
        bar.note(f"{state.waiting:,} of {state.facts:,} facts need a vector ({embedder.name})")
        start = time.perf_counter()
        report = backfill_run(
            embedder=embedder,
            threads=max(1, threads),
            progress=lambda done: bar.update(done, state.waiting),
        )
        bar.finish()
        seconds = time.perf_counter() - start
        done = report.embedded
        rate = f" ({done / seconds:.0f} facts/s)" if done and seconds else ""
        self.stdout.write(f"{done} new embeddings ({embedder.name}) in {seconds:.1f} s{rate}")
