"""The two sides of the hand-edit race test (test_files_race.py), each a separate OS process.

    python -m tests.memstore.race_processes writer BOT PREFIX COUNT
    python -m tests.memstore.race_processes editor FILE MIN_EDITS STOP_FILE

The writer saves facts through the services (the product's one write path), retrying a write
the services gave up on because the file kept changing; it prints "ready", then at the end the
number of facts saved and of give-ups. The editor is a person with two kinds of editor,
alternating: one that rewrites the file in place (open, truncate, write) and one that writes a
new file and renames it over the original. Each edit changes one hand-written line to carry the
edit's number (so the file stays small), and first checks that its previous edit is still
there: if not, a product write overwrote it. It edits until it has made MIN_EDITS edits and
STOP_FILE exists, then prints how many edits of each kind it made and how many it found lost.
"""

import os
import random
import re
import sys
import time
from datetime import date
from pathlib import Path

# Seconds between two hand edits, at most: fast enough for thousands in a test, slow enough
# that a product write (read, change, write, a few ms) gets through between two of them.
PAUSE = float(os.environ.get("RACE_EDIT_PAUSE", 0.008))
HAND_LINE = re.compile(r"^- \(2026-03-02\) hand edit (?P<n>\d+) .*\n", re.M)


def writer(bot: str, prefix: str, count: int) -> None:
    import django

    django.setup()
    from memstore.errors import EditConflict
    from memstore.facts.paths import Scope
    from memstore.store.services import fact_remember

    shard = Scope("bot", bot).shard(bot)
    print("ready", flush=True)
    gave_up = 0
    for i in range(count):
        while True:
            try:
                fact_remember(shard=shard, text=f"{prefix} fact {i}", day=date(2026, 3, 1))
                break
            except EditConflict:
                gave_up += 1
    print(count, gave_up, flush=True)


def editor(file: str, min_edits: int, stop_file: str) -> None:
    path, stop = Path(file), Path(stop_file)
    rng = random.Random(os.getpid())
    made = {"in-place": 0, "rename": 0}
    lost = 0
    print("ready", flush=True)
    n = 0
    while n < min_edits or not stop.exists():
        content = path.read_bytes().decode()
        kind = "in-place" if n % 2 else "rename"
        line = f"- (2026-03-02) hand edit {n} {kind}\n"
        # The person's last edit must still be there; a product write that overwrote it would
        # have put back the line as it was before.
        previous = HAND_LINE.search(content)
        if n and (previous is None or int(previous["n"]) != n - 1):
            lost += 1
        new = HAND_LINE.sub(line, content, count=1) if previous else content + line
        if kind == "in-place":
            with open(path, "r+b") as handle:  # like an editor saving into the same file
                handle.truncate(0)
                handle.write(new.encode())
        else:
            side = path.with_name(path.name + ".edit~")  # like vim/VS Code: write, then rename
            side.write_bytes(new.encode())
            os.replace(side, path)
        made[kind] += 1
        n += 1
        time.sleep(rng.uniform(0, PAUSE))
    print(made["in-place"], made["rename"], lost, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "writer":
        writer(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        editor(sys.argv[2], int(sys.argv[3]), sys.argv[4])
