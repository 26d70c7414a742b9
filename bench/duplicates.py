"""Duplicates you can trust at 50,000 facts: the precision of the health report's suggested
merges, measured on a sample labelled by hand.

    python -m bench duplicates [--facts 50000] [--seed 34] [--sample 120] [--sample-seed 34]
                               [--sheet PATH] [--quick] [--json]

In a throwaway database and MEMORY_ROOT, bot `ada` gets the store of `bench._dupes_store`
(the LoCoMo dev lines, varied generated sentences and planted look-alikes, all deterministic
for the seed), every fact embedded for real by the bundled model (32 texts a run; vectors
kept in var/bench/ by text, so a re-run embeds nothing). Then the health report runs
(`memstore.upkeep.health.health_report`, what the console's Health page shows with a Merge
button) and `--sample` of its duplicate findings are drawn with a fixed seed (`--sample-seed`:
a fresh sample of the same store, for a rule changed after labelling).

Labels: bench/duplicates_labels.json, one per sampled pair, keyed by a hash of the two texts
(`pair_key`), so no LoCoMo text is in the repository. `same`: one fact may be archived for the
other and nothing it says is lost; `different`: they say different things. `--sheet` writes the
unlabelled pairs to read and label (under var/, never committed). Printed: precision over the
labelled sample, its size, and what the rule refused (candidate pairs alike enough to suggest,
left out because they differ in meaning, by family).
"""

import hashlib
import json
import os
import random
from collections import Counter
from datetime import date
from pathlib import Path

from bench._workspace import REPO, VAR, isolated_workspace, log

LABELS = REPO / "bench" / "duplicates_labels.json"


def pair_key(a: str, b: str) -> str:
    """A pair's label key: the first 16 hex digits of sha256 over the two texts, sorted."""
    return hashlib.sha256("\n".join(sorted([a, b])).encode()).hexdigest()[:16]


def write_store(root: Path, lines: list[tuple[date, str, str]]) -> None:
    by_file: dict[Path, list[str]] = {}
    folder = root / "agents/ada/memory/log"
    for day, text, _ in lines:
        by_file.setdefault(folder / f"{day:%Y-%m}.md", []).append(f"- ({day}) {text}")
    for path, rows in by_file.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# Memory log\n\n" + "\n".join(rows) + "\n", encoding="utf-8")


def embed_all(texts: list[str]) -> int:
    """Store a real vector for every fact (cached by text under var/bench); returns how many
    the model computed now."""
    import numpy as np

    from bench._workspace import vectors_copy
    from memstore.facts.markdown import FactLine, fact_identity
    from memstore.recall.vectors import embedder_current

    embedder = embedder_current()
    cache = VAR / "bench" / f"duplicates-vectors-{embedder.name.replace('/', '_')}.npz"
    known: dict[str, np.ndarray] = {}
    if cache.exists():
        held = np.load(cache)
        known = dict(zip(held["keys"].tolist(), held["vectors"], strict=True))
    bodies = {t: FactLine(day=date.min, text=t).body for t in texts}
    key = {t: hashlib.sha1(body.encode()).hexdigest() for t, body in bodies.items()}
    missing = sorted({key[t]: bodies[t] for t in texts if key[t] not in known}.items())
    for start in range(0, len(missing), 2_000):
        chunk = missing[start : start + 2_000]
        vectors = _embedded(embedder, [body for _, body in chunk])
        known.update(zip([k for k, _ in chunk], vectors, strict=True))
        log(f"  embedded {start + len(chunk):,}/{len(missing):,}")
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, keys=np.array(list(known)), vectors=np.stack(list(known.values())))
    ids = [fact_identity(t) for t in texts]
    vectors_copy(embedder.name, ids, np.stack([known[key[t]] for t in texts]).astype(np.float32))
    return len(missing)


def _embedded(embedder, bodies: list[str]):
    """The bodies' vectors, 32 texts a model run when the model can (about 3 times faster on
    a loaded 2-core box; each vector then depends on its batch-mates by a cosine of at most
    about 0.006, far below the 0.90 floor's margin), else one text a run."""
    import numpy as np

    if not hasattr(embedder, "_embed_batch"):
        return embedder.embed_passages(bodies)
    return np.vstack([embedder._embed_batch(bodies[i : i + 32]) for i in range(0, len(bodies), 32)])


def refused(facts) -> Counter:
    """Candidate pairs the rule would suggest but for a difference in meaning, by family."""
    from memstore.upkeep.duplicates import (
        MEANING_WORDS,
        body_of,
        conflicting,
        overlap,
        similar_pairs,
        swapped,
        thresholds,
    )
    from memstore.upkeep.meaning import differences
    from memstore.upkeep.store import store_vectors

    floors = (thresholds("meaning"), thresholds("words"))
    counts: Counter = Counter()
    scored = similar_pairs(facts, store_vectors(facts), floors=floors, min_words=MEANING_WORDS)
    for first, second, score, by in scored:
        a, b = body_of(first.text), body_of(second.text)
        if score < floors[by == "words"] or (by == "meaning" and overlap(a, b) < MEANING_WORDS):
            continue
        if swapped(a, b) or conflicting(a, b):
            continue
        if families := differences(a, b):
            counts["pairs"] += 1
            counts.update(families)
    return counts


QUICK = {"runs": 1, "facts": 3_000, "sample": 20}  # --quick: small sizes, to see that it runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=34, help="the store's seed")
    parser.add_argument("--sample", type=int, default=120)
    parser.add_argument("--sample-seed", type=int, default=34, help="which suggestions to draw")
    parser.add_argument("--sheet", type=Path, default=VAR / "bench" / "duplicates-sheet.txt")


def run(args) -> dict:
    load = os.getloadavg()[0]
    with isolated_workspace("bench_duplicates"):
        from django.conf import settings

        from bench._dupes_store import store_lines
        from memstore.index import index_rebuild
        from memstore.upkeep.health import health_report
        from memstore.upkeep.store import bot_store_shards, store_facts

        settings.EMBEDDINGS = "bge-small"
        lines = store_lines(args.facts, args.seed)
        write_store(settings.MEMORY_ROOT, lines)
        log(f"wrote {len(lines):,} facts")
        index_rebuild()
        log(f"embedded {embed_all([t for _, t, _ in lines]):,} texts now (the rest cached)")
        shards = bot_store_shards("ada")
        report = health_report(shards=shards, limit=10**7)
        found = [f for f in report.findings if f.kind == "duplicate"]
        kinds = {text: kind for _, text, kind in lines}
        no = refused(store_facts(shards=shards))
    log(f"{len(found):,} duplicate suggestions")
    found.sort(key=lambda f: pair_key(f.fact.text, f.other.text))
    sample = random.Random(args.sample_seed).sample(found, min(args.sample, len(found)))
    _sheet(args.sheet, sample)
    body = _summary(args, len(lines), found, sample, kinds, no)
    body += f"load average (1 min) {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end\n"
    print(body)
    said = [_labels().get(pair_key(f.fact.text, f.other.text)) for f in sample]
    return {"suggestions": len(found), "sample": len(sample), "same": said.count("same"),
            "different": said.count("different"), "refused": dict(no)}  # fmt: skip


def _sheet(path: Path, sample) -> None:
    labels = _labels()
    rows = []
    for finding in sample:
        key = pair_key(finding.fact.text, finding.other.text)
        if key not in labels:
            rows.append(
                f"{key}  {finding.why}\n  A: {finding.fact.text}\n  B: {finding.other.text}\n"
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows), encoding="utf-8")
    log(f"{len(rows)} sampled pairs to label in {path}")


def _labels() -> dict[str, str]:
    return json.loads(LABELS.read_text())["labels"] if LABELS.exists() else {}


def _summary(args, facts, found, sample, kinds, no) -> str:
    labels = _labels()
    said = [labels.get(pair_key(f.fact.text, f.other.text)) for f in sample]
    same, labelled = said.count("same"), sum(1 for s in said if s)
    planted = Counter(
        "/".join(sorted({kinds.get(f.fact.text, "?"), kinds.get(f.other.text, "?")}))
        for f in sample
    )
    wrong = Counter(
        "/".join(sorted({kinds.get(f.fact.text, "?"), kinds.get(f.other.text, "?")}))
        for f, s in zip(sample, said, strict=True)
        if s == "different"
    )
    precision = f"{same / labelled:.3f}" if labelled else "n/a"
    from memstore.upkeep.meaning import FAMILIES

    families = ", ".join(f"{family} {no[family]:,}" for family in FAMILIES)
    return (
        f"`python -m bench duplicates --facts {args.facts} --seed {args.seed} "
        f"--sample {args.sample} --sample-seed {args.sample_seed}`, {date.today()}\n\n"
        f"store: {facts:,} facts; suggestions: {len(found):,}; sampled {len(sample)}, "
        f"labelled {labelled}, same {same}: precision {precision}\n"
        f"sampled pairs by what the store planted (line kinds): {dict(planted.most_common())}\n"
        f"labelled different, by kinds: {dict(wrong.most_common())}\n"
        f"refused for a difference in meaning: {no['pairs']:,} pairs ({families})\n"
    )
