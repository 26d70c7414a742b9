"""`bench scale`'s layout (the benched bot reads the same facts at every size) and its build
report (one table with baselines, ratios and load)."""

import pytest

from bench._recall_workspace import fact_texts
from bench._scale import BENCHED, filler_texts, shards
from memstore.recall.vectors import ANN_MIN_FACTS


@pytest.mark.parametrize("size", [100_000, 1_000_000])
def test_the_workspace_grows_around_a_bot_that_reads_the_same_19000_facts(size):
    layout = shards(size)
    searched = sum(facts for key, _, facts in layout if key in BENCHED)
    assert (size, 19_000) == (sum(facts for _, _, facts in layout), searched)
    assert searched < ANN_MIN_FACTS  # the exact scan at every size
    assert len({rel for _, rel, _ in layout}) == len(layout)


def test_filler_facts_are_distinct_and_never_the_benched_bots():
    filler = filler_texts(5_000)
    assert len(set(filler)) == 5_000
    assert not set(filler) & set(fact_texts(5_000))


def test_the_build_report_is_one_table_with_baselines_ratios_and_load():
    from types import SimpleNamespace

    from bench.scale import build_report

    builds = [
        {"variant": v, "workers": w, "seconds": s, "recall": {40: 0.9, 200: 0.99}, "mb": 78.0}
        for v, w, s in [("vector", 0, 30.0), ("vector", 1, 15.0), ("halfvec", 1, 12.0)]
    ]
    results = {
        "size": 1_000_000,
        "runs": 2,
        "rebuild": {
            "facts": 1_000_000,
            "files": 9_940,
            "serial": 20.0,
            "parallel": 12.0,
            "serial_commit": 16.0,
            "parallel_commit": 8.0,
            "workers": 1,
            "load": [1.0, 1.5],
            "cpu": {"0": {"this process": 11.0}, "1": {"this process": 2.0, "workers": 9.0}},
            "wal": {"0": 20.0, "1": 21.0},
            "wal_level": "minimal",
        },
        "hnsw": {"vectors": 100_000, "builds": builds, "load": [1.0, 1.2], "k": 10},
        "reembed": {
            "facts": 300,
            "vectors": 1_000_000,
            "indexed": True,
            "load": [1.0, 1.1],
            "rates": {
                "model alone, 1 thread": 300.0,
                "backfill before, 1 thread": 150.0,
                "backfill now, 1 thread": 240.0,
            },
        },
    }
    args = SimpleNamespace(hnsw_rows=100_000, reembed=300, with_index=False)
    text = build_report(results, args)
    assert "`python -m bench scale --build --size 1000000 --runs 2" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0] == "| what | baseline | figure | figure ÷ baseline | load |"
    assert "| one process 20.0 | 1 worker process 12.0 | 0.60× | 1.0 → 1.5 |" in rows[2]
    assert "commit (the index usable), s | one process 16.0 | 8.0 | 0.50× | 1.0 → 1.5 |" in rows[3]
    assert "| serial vector 30.0 | 12.0 | 0.40× |" in rows[6]
    assert "| before 150 | 240 | 1.60× | 1.0 → 1.1 |" in rows[7]
    assert "| 300 | |" in rows[8]
    assert "(wal_level minimal): one process 20 MB ; 1 workers 21 MB." in text
