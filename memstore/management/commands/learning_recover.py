"""manage.py learning_recover: hand learning jobs of dead workers back to the queue now."""

from django.core.management.base import BaseCommand

from memstore.learning.queue import STALLED_AFTER, jobs_recover


class Command(BaseCommand):
    help = (
        "Requeue learning jobs left running by workers that stopped (killed, crashed, host "
        "lost). Workers do this every minute by themselves; this does it at once."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--stalled-after",
            type=float,
            default=STALLED_AFTER,
            help="Seconds without a worker heartbeat before its jobs count as stalled.",
        )

    def handle(self, *args, stalled_after: float, **options):
        count = jobs_recover(stalled_after=stalled_after)
        self.stdout.write(f"Requeued {count} stalled learning job(s).")
