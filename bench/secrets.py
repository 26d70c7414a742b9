"""What `secret_kind` costs a line: `python -m bench secrets [--runs 5] [--against DIR ...]`.

It runs on every save and on every line read from disk, so it is timed on realistic lines:
LoCoMo's facts written as fact lines with metadata, and its questions with and without their
answers (../shared/bench/locomo-dev), cycled to 10,000 lines. Each code version (this checkout
and each `--against` folder holding another version's `memstore/`, e.g. `git archive main
memstore | tar -x -C /tmp/main`) runs in a child process of its own, the versions taking turns
round after round so they share the machine's load; CPU time (not wall time) per line, median
of the rounds. Also prints how many lines each version flags (a realistic corpus: ideally 0).

`--false-positives` instead counts, for this checkout, the ordinary lines refused as secrets:
LoCoMo's facts, questions and answers (each as a bare text, and as a fact line with its
metadata), and every non-empty line of docs/*.md (a refused docs line is printed: the docs
are ours; LoCoMo's lines are only counted).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

DATA = Path("../shared/bench/locomo-dev")


def lines_of(data: Path, count: int) -> list[str]:
    """`count` realistic memory lines built from the LoCoMo files, cycled."""
    texts = []
    for raw in (data / "facts.jsonl").read_text().splitlines():
        row = json.loads(raw)
        src = f"locomo:{row['conv_id']}:{','.join(row['evidence'])}"
        texts.append(
            f"- ({row['date']}) {row['text']} <!-- src={src} by=learner importance=0.6 -->"
        )
    for raw in (data / "queries.jsonl").read_text().splitlines():
        row = json.loads(raw)
        texts += [row["question"], f"- (2023-05-08) {row['question']} {row['answer']}"]
    return (texts * (count // len(texts) + 1))[:count]


def child(data: Path, count: int) -> None:
    """One round in this process: microseconds of CPU per line, and lines flagged."""
    from memstore.rules.policy import secret_kind

    lines = lines_of(data, count)
    for line in lines[:500]:
        secret_kind(line)  # warm up (compiled patterns, caches)
    start = time.process_time()
    flagged = sum(1 for line in lines if secret_kind(line))
    spent = time.process_time() - start
    print(json.dumps({"us": spent / len(lines) * 1e6, "flagged": flagged}))


def ordinary_texts(data: Path) -> dict[str, list[str]]:
    """Ordinary text, by corpus: LoCoMo's facts, questions and answers, and the docs' lines."""
    facts = [json.loads(raw) for raw in (data / "facts.jsonl").read_text().splitlines()]
    queries = [json.loads(raw) for raw in (data / "queries.jsonl").read_text().splitlines()]
    docs = Path(__file__).resolve().parent.parent / "docs"
    return {
        "locomo facts": [row["text"] for row in facts],
        "locomo questions": [row["question"] for row in queries],
        "locomo answers": [str(row["answer"]) for row in queries],
        "locomo fact lines (with src=)": lines_of(data, len(facts) + 2 * len(queries)),
        "docs/*.md lines": [
            line.strip()
            for path in sorted(docs.glob("*.md"))
            for line in path.read_text().splitlines()
            if line.strip()
        ],
    }


def false_positives(data: Path) -> None:
    """Print how many ordinary lines of each corpus the detector refuses."""
    from memstore.rules.policy import secret_kind

    total = flagged_all = 0
    for name, texts in ordinary_texts(data).items():
        flagged = [(text, kind) for text in texts if (kind := secret_kind(text))]
        total, flagged_all = total + len(texts), flagged_all + len(flagged)
        print(f"{name}: {len(flagged)} of {len(texts)} refused ({_pct(len(flagged), len(texts))})")
        if name.startswith("docs"):
            for text, kind in flagged:
                print(f"    {kind}: {text[:100]}")
    print(f"all: {flagged_all} of {total} refused ({_pct(flagged_all, total)})")


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / max(whole, 1):.2f} %"


RUNS = 5


QUICK = {"runs": 2, "lines": 500}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--against", action="append", default=[], help="another code folder")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--false-positives", action="store_true", help="count refused lines")


def run(args):
    from bench.harness import load, median, row_of, rows_print

    if args.false_positives:
        false_positives(args.data)
        return None

    here = Path(__file__).resolve().parent.parent
    versions = [str(here), *(str(Path(d).resolve()) for d in args.against)]
    results: dict[str, list[dict]] = {v: [] for v in versions}
    before = load()
    for _ in range(args.runs):  # the versions take turns, round after round
        for version in versions:
            env = os.environ | {"PYTHONPATH": version}
            command = [sys.executable, __file__, "--child", str(args.data), str(args.lines)]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            results[version].append(json.loads(done.stdout))
    after = load()
    rows = [
        row_of(
            "this checkout" if version == versions[0] else Path(version).name,
            [[r["us"] / 1000] for r in rounds],  # us per line, shown in the ms columns as us/1000
            load_before=before,
            load_after=after,
            extra={
                "us per line": f"{median(r['us'] for r in rounds):.1f}",
                "lines flagged": f"{rounds[0]['flagged']} of {args.lines}",
            },
        )
        for version, rounds in results.items()
    ]
    rows_print(rows, "CPU time of `secret_kind` per line (child processes taking turns)")
    return rows


if __name__ == "__main__":  # the child: run with another version's code on PYTHONPATH
    child(Path(sys.argv[2]), int(sys.argv[3]))
