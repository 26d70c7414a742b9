"""manage.py recall_embed: compute the embeddings of every indexed fact that has none yet.

Recall embeds new facts on first use; after a large import run this once so the first searches
are fast. Vectors are cached by fact identity and by how they were made (the model's name), so
running it again only embeds what is new, and after an upgrade that changed the method (issue
16: one text per run) it recomputes every vector once.
"""

import time

from django.core.management.base import BaseCommand

from memstore.facts.paths import all_scopes, memory_root
from memstore.index import index_sync
from memstore.models import Fact
from memstore.recall.vectors import embedder_current, vectors_ensure


class Command(BaseCommand):
    help = "Embed every indexed fact that has no vector yet under the configured model."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", type=int, default=2000, help="facts per progress step")

    def handle(self, *args, batch: int, **options) -> None:
        embedder = embedder_current()
        if embedder is None:
            self.stderr.write("No embedding model configured or installed: nothing to do.")
            return
        index_sync(scopes=all_scopes(memory_root()))
        texts = dict(Fact.objects.order_by("fact_id").values_list("fact_id", "text"))
        ids = list(texts)
        start, done = time.perf_counter(), 0
        for offset in range(0, len(ids), batch):
            chunk = ids[offset : offset + batch]
            done += vectors_ensure(
                {fact_id: texts[fact_id] for fact_id in chunk}, embedder=embedder
            )
            self.stderr.write(f"{min(offset + batch, len(ids))}/{len(ids)} facts checked")
        seconds = time.perf_counter() - start
        rate = f" ({done / seconds:.0f} facts/s)" if done and seconds else ""
        self.stdout.write(f"{done} new embeddings ({embedder.name}) in {seconds:.1f} s{rate}")
