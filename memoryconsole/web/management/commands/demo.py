"""`python manage.py demo`: create the demo workspace (idempotent; prints what it did)."""

import time

from django.core.management.base import BaseCommand

from memstore.management.demo import DEMO_PEOPLE, demo_workspace


class Command(BaseCommand):
    help = "Create the demo workspace: bots ava, ben and cleo, people demo and sam, real memory."

    def handle(self, *args, **options):
        started = time.perf_counter()
        report = demo_workspace(say=lambda line: self.stdout.write(f"demo: {line}"))
        for item in report.created:
            self.stdout.write(f"demo: created {item}")
        if report.skipped_memory:
            self.stdout.write("demo: memory already present, left as it is")
        password, _ = DEMO_PEOPLE["demo"]
        self.stdout.write(
            f"demo: ready in {time.perf_counter() - started:.2f} s; "
            f"log in as demo / {password} (staff) or sam / {DEMO_PEOPLE['sam'][0]}"
        )
