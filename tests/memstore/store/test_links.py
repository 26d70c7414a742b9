"""Links between facts: stored in the fact line's metadata, indexed by sync and rebuild, added and
removed through the write path, read as neighbourhoods."""

import pytest

from memstore.errors import FactNotFound, InvalidFact
from memstore.facts import markdown
from memstore.facts.paths import Scope
from memstore.index import index_rebuild
from memstore.models import Link
from memstore.store.links import Edge, bot_link_add, bot_link_remove, neighbours_of, store_graph
from tests.helpers import direct, facts_on_disk, log, profile, synced, tree

pytestmark = pytest.mark.django_db

OLD, NEW, OTHER = "Office is in Porto", "Office moved to Lisbon", "Standup at nine"
BOT = [Scope("bot", "ada")]


def ids(*texts: str) -> list[str]:
    return [markdown.fact_identity(t) for t in texts]


def store(root):
    profile(root, "bot", "ada", f"- (2026-01-01) {OLD}", f"- (2026-03-01) {OTHER}")
    log(root, "bot", "ada", "2026-11", f"- (2026-11-02) {NEW} <!-- via=learner -->")


def links_in_index() -> list[tuple[str, str, str]]:
    return sorted(Link.objects.values_list("source", "kind", "target"))


def test_a_link_is_written_into_the_line_and_indexed(memory_root):
    store(memory_root)
    old, new, _ = ids(OLD, NEW, OTHER)
    links = bot_link_add(ctx=direct(), fact_id=new, kind="supersedes", target=old)
    assert [("supersedes", old)] == links
    lines = facts_on_disk(memory_root)["agents/ada/memory/log/2026-11.md"]
    assert {"via": "learner", "rel": f"supersedes:{old}"} == lines[0].meta
    assert lines[0].text == NEW  # same text, same identity
    assert [(new, "supersedes", old)] == links_in_index()


def test_neighbours_both_ways_and_depth(memory_root):
    store(memory_root)
    old, new, other = ids(OLD, NEW, OTHER)
    bot_link_add(ctx=direct(), fact_id=new, kind="supersedes", target=old)
    bot_link_add(ctx=direct(), fact_id=old, kind="related_to", target=other)
    near = neighbours_of(scopes=BOT, fact_ids=[old])
    assert [Edge(new, "supersedes", old), Edge(old, "related_to", other)] == sorted(
        near.edges, key=lambda e: e.source != new
    )
    assert {old, new, other} == set(near.facts)
    one_hop = neighbours_of(scopes=BOT, fact_ids=[new])
    assert [Edge(new, "supersedes", old)] == one_hop.edges
    two_hops = neighbours_of(scopes=BOT, fact_ids=[new], depth=2)
    assert len(two_hops.edges) == 2


def test_hand_written_links_are_indexed_and_a_hand_edit_removes_them(memory_root):
    old, other = ids(OLD, OTHER)
    path = profile(
        memory_root, "bot", "ada", f"- (2026-01-01) {OLD} <!-- rel=related_to:{other},bogus:12 -->"
    )
    profile(memory_root, "bot", "ada", f"- (2026-01-01) {OLD} <!-- rel=related_to:{other} -->")
    assert [Edge(old, "related_to", other)] == store_graph(scopes=BOT).edges
    path.write_text(path.read_text().replace(f" <!-- rel=related_to:{other} -->", ""))
    assert store_graph(scopes=BOT).edges == []
    assert links_in_index() == []


def test_rebuild_restores_links_from_the_files(memory_root):
    store(memory_root)
    old, new = ids(OLD, NEW)
    bot_link_add(ctx=direct(), fact_id=new, kind="supersedes", target=old)
    index_rebuild()
    assert [(new, "supersedes", old)] == links_in_index()


def test_removing_a_link(memory_root):
    store(memory_root)
    old, new = ids(OLD, NEW)
    bot_link_add(ctx=direct(), fact_id=new, kind="supersedes", target=old)
    assert bot_link_remove(ctx=direct(), fact_id=new, kind="supersedes", target=old) == []
    assert facts_on_disk(memory_root)["agents/ada/memory/log/2026-11.md"][0].meta == {
        "via": "learner"
    }
    assert links_in_index() == []
    with pytest.raises(FactNotFound):
        bot_link_remove(ctx=direct(), fact_id=new, kind="supersedes", target=old)


@pytest.mark.parametrize(
    ("kind", "target", "error"),
    [
        ("replaces", "old", InvalidFact),
        ("supersedes", "ffffffffffffffff", FactNotFound),
        ("supersedes", "new", InvalidFact),  # itself
    ],
)
def test_bad_links_are_refused_and_nothing_changes(memory_root, kind, target, error):
    store(memory_root)
    old, new = ids(OLD, NEW)
    before = synced(memory_root)
    with pytest.raises(error):
        bot_link_add(
            ctx=direct(),
            fact_id=new,
            kind=kind,
            target={"old": old, "new": new}.get(target, target),
        )
    assert before == tree(memory_root)
    assert links_in_index() == []


def test_a_fact_the_bot_cannot_change_is_not_linked(memory_root):
    store(memory_root)
    profile(memory_root, "bot", "bo", f"- (2026-01-01) {OTHER}", bot="bo")
    old, other = ids(OLD, OTHER)
    before = synced(memory_root)
    with pytest.raises(FactNotFound):
        bot_link_add(ctx=direct(bot="bo"), fact_id=old, kind="related_to", target=other)
    assert before == tree(memory_root)


def test_hidden_facts_and_their_links_are_not_shown_to_bots(memory_root):
    old, other = ids(OLD, OTHER)
    profile(
        memory_root,
        "bot",
        "ada",
        f"- (2026-01-01) {OLD} <!-- rel=related_to:{other} -->",
        f"- (2026-03-01) {OTHER} <!-- visibility=hidden -->",
    )
    assert len(neighbours_of(scopes=BOT, fact_ids=[old]).edges) == 1
    bots_view = neighbours_of(scopes=BOT, fact_ids=[old], include_hidden=False)
    assert ([], [old]) == (bots_view.edges, list(bots_view.facts))
