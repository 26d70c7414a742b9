"""A separate OS process that remembers facts in a loop (used by test_concurrency.py).

    python -m tests.memstore.writer_process SCOPE BOT PREFIX COUNT

SCOPE is "bot", "user:<person>" or "project:<slug>". The environment carries
DJANGO_SETTINGS_MODULE, DATABASE_URL (the test database) and MEMORY_ROOT. Prints "ready" once
set up, then one "." per fact saved.
"""

import sys
from datetime import date

import django


def main(scope: str, bot: str, prefix: str, count: int) -> None:
    django.setup()
    from memstore.facts.paths import Scope
    from memstore.store.services import fact_remember

    kind, _, name = scope.partition(":")
    shard = Scope(kind, name or bot).shard(bot)  # type: ignore[arg-type]
    print("ready", flush=True)
    for i in range(count):
        fact_remember(shard=shard, text=f"{prefix} fact number {i}", day=date(2026, 3, 1))
        print(".", end="", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
