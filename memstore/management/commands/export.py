"""`manage.py export (--bot SLUG | --person P | --all) OUT`: a zip of memory files and a JSON
lines file with every fact's metadata (see memstore.privacy.export)."""

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.facts.files import file_open
from memstore.privacy.export import FACTS_FILE, export_files, memory_export


class Command(BaseCommand):
    help = "Export memory as a zip of the Markdown files plus facts.jsonl."

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--bot", help="one bot's memory: its own and every shard it wrote")
        which.add_argument("--person", help="one person's user memory (every bot's shard)")
        which.add_argument("--all", action="store_true", help="everything under MEMORY_ROOT")
        parser.add_argument("out", type=Path, help="the zip file to write")

    def handle(self, *args, bot, person, all: bool, out: Path, **options):
        if out.is_dir():
            raise CommandError(f"{out} is a folder; name the zip file to write.")
        try:
            files = export_files(bot=bot, person=person, everything=all)
        except MemstoreError as exc:
            raise CommandError(str(exc)) from None
        partial = out.with_name(out.name + ".partial")
        # A copy of memory: created with the memory file mode, like memory itself.
        with os.fdopen(file_open(partial, os.O_WRONLY | os.O_TRUNC), "wb") as stream:
            summary = memory_export(files=files, out=stream)
        partial.replace(out)  # a failed export leaves no half-written zip under the real name
        self.stdout.write(
            f"Exported {summary.files} files and {summary.facts} facts to {out} "
            f"(Markdown tree + {FACTS_FILE})."
        )
