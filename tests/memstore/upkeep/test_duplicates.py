"""Duplicate detection measured on the labelled set (60 pairs): the thresholds in
memstore/upkeep/duplicates.py must keep giving these figures, and pairs are found in a store."""

from datetime import date

import pytest

from memstore.facts.records import StoredFact
from memstore.recall import embeddings
from memstore.recall.embeddings import embedder_load
from memstore.upkeep.duplicates import conflicting, duplicates_find, labelled_measure
from tests.memstore.upkeep.labelled_pairs import PAIRS

LABELLED = [(a, b, label == "same") for a, b, label, _ in PAIRS]


def test_the_labelled_set_is_big_enough_and_balanced():
    groups = [group for *_, group in PAIRS]
    assert len(PAIRS) >= 50
    assert {g: groups.count(g) for g in set(groups)} == {
        "light": 18,
        "paraphrase": 18,
        "related": 24,
    }


@pytest.fixture(scope="module")
def embed():
    if embeddings.bge_small_dir() is None:
        pytest.skip("the bundled embedding model is not installed")
    return embedder_load("bge-small").embed_passages


def test_by_meaning_precision_and_recall(embed):
    certain, likely = labelled_measure(LABELLED, embed)
    print(f"\ncertain {certain}\nlikely  {likely}")
    # Upkeep merges on its own only at `certain`: no false merge on the set.
    assert (certain.precision, certain.recall) == (1.0, 0.5)
    assert (likely.precision, likely.recall) == (0.917, 0.917)


def test_by_words_precision_and_recall():
    certain, likely = labelled_measure(LABELLED)
    print(f"\ncertain {certain}\nlikely  {likely}")
    assert (certain.precision, certain.recall) == (1.0, 0.5)
    assert (likely.precision, likely.recall) == (0.893, 0.694)


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        ("The office is in Lisbon", "The office is in Porto", True),
        ("Standup is at 9:30", "Standup is at 10:00", True),
        ("Deploys need two approvals", "Deploys need 2 approvals", False),  # one side only
        ("Weekly sync on Thursdays", "Meets every Thursday", False),  # plural
    ],
)
def test_values_that_differ_on_both_sides_are_never_duplicates(a, b, conflict):
    assert conflict == conflicting(a, b)


def fact(text: str, scope: str = "bot:ada") -> StoredFact:
    from memstore.facts.markdown import fact_identity

    return StoredFact(fact_identity(text), date(2026, 11, 1), text, "log", scope, "ada", "f.md")


def test_pairs_are_found_within_a_scope_by_words():
    facts = [
        fact("Backups run nightly at 02:00 UTC"),
        fact("backups run nightly at 02:00 utc."),
        fact("Backups run nightly at 02:00 UTC", scope="project:ops"),
        fact("The office is in Lisbon"),
        fact("The office is in Porto"),
    ]
    [pair] = duplicates_find(facts)
    assert ({facts[0].text, facts[1].text}, True) == (
        {pair.first.text, pair.second.text},
        pair.certain,
    )


def test_pairs_are_found_by_meaning(embed):
    facts = [fact("Hates long meetings"), fact("Dislikes meetings that run long"), fact("Is vegan")]
    vectors = dict(zip([f.fact_id for f in facts], embed([f.text for f in facts]), strict=True))
    [pair] = duplicates_find(facts, vectors)
    assert (pair.by, pair.certain) == ("meaning", False)  # likely: shown to a person, not merged
