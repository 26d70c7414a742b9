"""`bench scale`'s layout (the benched bot reads the same facts at every size) and the docs
writer it shares with the other benchmarks (a `###` section replaced in place)."""

import pytest

import bench._workspace as workspace
from bench._scale import BENCHED, filler_texts, shards
from bench.recall import fact_texts
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


DOC = """# Benchmarks

## Issue 15

### The API

api text

### A million facts

old figures
<!-- notes below are kept when the benchmark rewrites this section -->
a note

## Issue 16

more
"""


def test_a_subsection_is_replaced_in_place_with_its_notes(tmp_path, monkeypatch):
    docs = tmp_path / "benchmarks.md"
    docs.write_text(DOC)
    monkeypatch.setattr(workspace, "DOCS", docs)
    monkeypatch.setattr(workspace, "REPO", tmp_path)
    workspace.docs_section_write("### A million facts", "new figures", under="## Issue 15")
    expected = DOC.replace("old figures\n", "new figures\n\n")
    assert expected == docs.read_text()


def test_a_missing_subsection_goes_at_the_end_of_its_parent(tmp_path, monkeypatch):
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Issue 15\n\nintro\n\n## Issue 16\n\nmore\n")
    monkeypatch.setattr(workspace, "DOCS", docs)
    monkeypatch.setattr(workspace, "REPO", tmp_path)
    workspace.docs_section_write("### A million facts", "figures", under="## Issue 15")
    assert docs.read_text() == (
        "# Benchmarks\n\n## Issue 15\n\nintro\n\n### A million facts\n\nfigures\n\n"
        "## Issue 16\n\nmore\n"
    )
