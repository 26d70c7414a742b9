"""POST /facts/forget (and DELETE /facts/{id}) answer what they removed, where, and the copies
other bots' shards still hold; with erase=true nothing of the fact is left in what the bot may
manage. `manage.py memory verify-forgotten` checks every answer against what is stored."""

import pytest

from memstore.facts import markdown
from memstore.models import Exchange
from tests.helpers import BotClient, embed, exchange_stored, remaining, remaining_kinds, write_facts

FACT = "Launch moves to March 3"
FACT_ID = markdown.fact_identity(FACT)
A_SHARD = "projects/apollo/memory/by-agent/a/profile.md"
B_SHARD = "projects/apollo/memory/by-agent/b/profile.md"


@pytest.fixture
def in_apollo(tokens) -> BotClient:
    """Bot a in a group room with project apollo in play."""
    return BotClient(
        token=tokens["a"], room_id="team", room_kind="group", person="", projects="apollo"
    )


@pytest.fixture
def both_hold_it(memory_root, in_apollo):
    """Bots a and b each wrote the fact into their shard of apollo; a saved it in its own memory
    through the API (so a's history holds it)."""
    write_facts(memory_root, A_SHARD, FACT)
    write_facts(memory_root, B_SHARD, FACT)
    assert in_apollo.post("/facts", {"text": FACT}).status == 201
    return memory_root


def copy(bot: str, file: str, scope="project", name="apollo") -> dict:
    return {"id": FACT_ID, "scope": scope, "scope_name": name, "bot": bot, "file": file}


def test_forget_says_what_it_removed_and_which_copies_still_reach_the_prompt(
    both_hold_it, in_apollo
):
    answer = in_apollo.post("/facts/forget", {"text": FACT.lower()})

    assert answer.status == 200, answer.body
    own = [r for r in answer.body["removed"] if r["scope"] == "bot"][0]["file"]
    assert answer.body["forgotten"] == 2
    assert sorted(
        ({k: v for k, v in r.items() if k != "line"} for r in answer.body["removed"]),
        key=lambda r: r["file"],
    ) == [copy("a", own, "bot", "a"), copy("a", A_SHARD)]
    assert answer.body["remaining"] == [copy("b", B_SHARD)]
    assert answer.body["erased"] is None
    # What `remaining` warns about: b's copy is still in a's prompt.
    assert FACT in in_apollo.get("/prompt").body["text"]
    # A plain forget keeps the text in a's history (restorable), and b's copy is untouched
    # (the section just served names it: a memory source, by identity).
    left = remaining(FACT)
    assert {line.split()[0] for line in left} == {"file", "index", "history", "source"}
    assert [line.split()[1] for line in left if line.startswith("file")] == [f"{B_SHARD}:3"]

    again = in_apollo.post("/facts/forget", {"id": FACT_ID})
    assert again.status == 409
    assert again.body["code"] == "held_by_other_bots"
    assert again.body["detail"] == {"remaining": [B_SHARD]}


def test_delete_by_id_answers_the_same_way(both_hold_it, in_apollo):
    answer = in_apollo.delete(f"/facts/{FACT_ID}", scope="project", project="apollo")
    assert answer.status == 200
    assert [r["file"] for r in answer.body["removed"]] == [A_SHARD]
    assert answer.body["remaining"] == [copy("b", B_SHARD)]


def test_erase_leaves_nothing_the_bot_may_manage(both_hold_it, in_apollo):
    embed(FACT)
    exchange_stored(bot="a", message=f"Heads up: {FACT}.")
    exchange_stored(bot="b", message=f"Heads up: {FACT}.")

    answer = in_apollo.post("/facts/forget", {"text": FACT, "erase": True})

    assert answer.status == 200, answer.body
    assert answer.body["forgotten"] == 2
    assert answer.body["remaining"] == [copy("b", B_SHARD)]
    # a's history: its own save and both removals; the exchange and its learning event.
    assert answer.body["erased"] == {"history": 3, "embeddings": 1, "records": 2}
    # Only b's copy (its line, its index row, b's history of it) and b's stored exchange are
    # left: they are not a's to change.
    left = remaining(FACT)
    assert {line.split()[0] for line in left} == {
        "file", "index", "history", "exchange", "learning",
    }  # fmt: skip
    assert all("/by-agent/b/" in line or "(b " in line or "(b," in line for line in left), left
    assert Exchange.objects.get(bot="a").message == "Heads up: [erased]."


def test_erase_after_a_forget_still_cleans_history(both_hold_it, in_apollo):
    assert in_apollo.post("/facts/forget", {"text": FACT}).status == 200
    assert "history" in remaining_kinds(FACT)

    answer = in_apollo.post("/facts/forget", {"id": FACT_ID, "erase": True})

    assert answer.status == 200, answer.body
    # Nothing left to remove; in a's history: its own save and both removals.
    assert (answer.body["forgotten"], answer.body["erased"]["history"]) == (0, 3)
    assert answer.body["remaining"] == [copy("b", B_SHARD)]
    assert remaining_kinds(FACT) == {"file", "index", "history"}  # b's copy, b's history


def test_erase_of_nothing_is_not_found_and_erase_must_be_a_boolean(memory_root, in_apollo):
    assert in_apollo.post("/facts/forget", {"text": FACT, "erase": True}).status == 404
    bad = in_apollo.post("/facts/forget", {"text": FACT, "erase": "please"})
    assert (bad.status, bad.body["code"]) == (422, "invalid_request")
