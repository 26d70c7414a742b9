"""The links API: add, read and remove links between facts, and recall with neighbours."""

import pytest

from memstore.facts import markdown
from tests.helpers import facts_on_disk

pytestmark = pytest.mark.django_db


def save(bot, text: str) -> str:
    answer = bot.post("/facts", {"text": text})
    assert answer.status == 201, answer.body
    return answer.body["id"]


def test_add_read_and_remove_a_link(bot_a, memory_root):
    old = save(bot_a, "Deploys run on Fridays")
    new = save(bot_a, "Deploys run on Tuesdays now")
    added = bot_a.post(f"/facts/{new}/links", {"kind": "supersedes", "target": old})
    assert (201, [{"source": new, "kind": "supersedes", "target": old}]) == (
        added.status,
        added.body["links"],
    )
    [line] = [f for f in sum(facts_on_disk(memory_root).values(), []) if f.identity == new]
    assert [("supersedes", old)] == markdown.links_of(line)
    near = bot_a.get(f"/facts/{old}/links")
    assert near.status == 200
    assert [{"source": new, "kind": "supersedes", "target": old}] == near.body["links"]
    assert {old, new} == {f["id"] for f in near.body["facts"]}
    removed = bot_a.delete(f"/facts/{new}/links/supersedes/{old}")
    assert (removed.status, removed.body["links"]) == (200, [])
    assert bot_a.get(f"/facts/{old}/links").body["links"] == []
    assert bot_a.delete(f"/facts/{new}/links/supersedes/{old}").status == 404


def test_bad_links_get_clear_errors(bot_a):
    fact = save(bot_a, "Deploys run on Fridays")
    unknown = bot_a.post(f"/facts/{fact}/links", {"kind": "supersedes", "target": "f" * 16})
    assert (unknown.status, unknown.body["code"]) == (404, "not_found")
    kind = bot_a.post(f"/facts/{fact}/links", {"kind": "replaces", "target": fact})
    assert kind.status == 422
    itself = bot_a.post(f"/facts/{fact}/links", {"kind": "related_to", "target": fact})
    assert (itself.status, itself.body["code"]) == (422, "invalid_fact")


def test_another_bot_cannot_link_or_see_links_it_cannot_read(tokens, bot_a):
    from tests.helpers import BotClient

    one, two = save(bot_a, "Deploys run on Fridays"), save(bot_a, "Releases need two reviews")
    assert bot_a.post(f"/facts/{one}/links", {"kind": "related_to", "target": two}).status == 201
    bot_b = BotClient(token=tokens["b"])
    assert bot_b.post(f"/facts/{one}/links", {"kind": "related_to", "target": two}).status == 404
    assert bot_b.get(f"/facts/{one}/links").body == {"links": [], "facts": []}


def test_recall_can_return_neighbours(bot_a):
    one = save(bot_a, "Deploys run on Fridays")
    two = save(bot_a, "Releases need two reviews")
    bot_a.post(f"/facts/{one}/links", {"kind": "depends_on", "target": two})
    plain = bot_a.get("/recall", query="deploys")
    assert ([one], [], []) == (
        [f["id"] for f in plain.body["items"]],
        plain.body["links"],
        plain.body["neighbours"],
    )
    near = bot_a.get("/recall", query="deploys", neighbours="true")
    assert [{"source": one, "kind": "depends_on", "target": two}] == near.body["links"]
    assert [two] == [f["id"] for f in near.body["neighbours"]]
