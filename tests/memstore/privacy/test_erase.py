"""Forget and erase in the service layer: a plain forget keeps the text in history (so it can be
restored), an erase leaves nothing within its reach (files, index, history, embeddings, stored
exchanges, learning records, idempotent replies), and erases across bots never deadlock."""

import json
import threading
import time
from contextlib import contextmanager

import pytest
from django.db import connection
from django.utils import timezone

from memstore.errors import FactNotFound, InvalidFact
from memstore.facts import markdown
from memstore.facts.history import history_read
from memstore.facts.paths import Scope
from memstore.index.events import events_ingest
from memstore.models import Exchange, IdempotentReply, LearningEvent, Proposal
from memstore.privacy import erase
from memstore.privacy.erase import Reach, fact_erase, reach_of_bot, reach_of_person
from memstore.registry.bots import bot_create
from memstore.rooms.idempotency import idempotent_call
from memstore.store.services import fact_forget, fact_remember, fact_restore
from tests.helpers import embed, exchange_stored, remaining, remaining_kinds, write_facts

pytestmark = pytest.mark.django_db
FACT = "Alice is allergic to peanuts"
FACT_ID = markdown.fact_identity(FACT)
ADA_OWN = "agents/ada/memory/profile.md"
ALICE_ADA = "users/alice/memory/by-agent/ada/profile.md"
ALICE_BEN = "users/alice/memory/by-agent/ben/profile.md"
BOB_ADA = "users/bob/memory/by-agent/ada/profile.md"


def user_shard(person: str, bot: str):
    return Scope("user", person).shard(bot)


def saved_everywhere(memory_root) -> None:
    """The fact in ada's own memory and in alice's memory by ada (saved through the service,
    so history holds it), cached as an embedding, quoted in a stored exchange and a reply."""
    for shard in (Scope("bot", "ada").shard("ada"), user_shard("alice", "ada")):
        fact_remember(shard=shard, text=FACT, tier="profile", by="ada")
    embed(FACT)
    exchange_stored(bot="ada", message=f"Remember: {FACT.lower()}!")
    bot_create(slug="ada")
    idempotent_call(
        bot="ada",
        key="k1",
        request={"text": FACT},
        call=lambda: (201, {"id": FACT_ID, "text": FACT}),
    )


def test_forget_keeps_history_and_the_cache_and_erase_leaves_nothing(memory_root):
    saved_everywhere(memory_root)
    events_ingest()  # the change feed has read the histories (as a feed read or a webhook does)
    Proposal.objects.create(
        key="dup-1", origin="duplicate", action="merge", bot="ada", scope_key="bot:ada",
        evidence=[{"id": FACT_ID, "text": FACT}], text=FACT, reason="Said twice",
    )  # fmt: skip
    assert remaining_kinds(FACT) == {
        "file", "index", "history", "feed", "embedding", "exchange", "learning", "reply",
        "proposal",
    }  # fmt: skip

    fact_forget(shards=reach_of_bot("ada").shards, text=FACT, by="ada")
    events_ingest()
    # Forgotten from memory, still restorable: history holds the line, the records the text.
    assert remaining_kinds(FACT) == {
        "history", "feed", "embedding", "exchange", "learning", "reply", "proposal",
    }  # fmt: skip

    erased = fact_erase(reach=reach_of_bot("ada"), text=FACT, by="ops", via="tool")
    assert (erased.removed, erased.embeddings) == ([], 1)
    assert erased.history == 4  # two adds, two removes
    assert erased.counts["feed"] == 4  # the same four lines, as the change feed numbered them
    assert erased.records == 4  # the exchange, its event, the idempotent reply, the proposal
    assert remaining(FACT) == []
    assert remaining(FACT_ID) == []

    mark = f"[erased {timezone.localdate().isoformat()} by ops]"
    history = history_read(memory_root, user_shard("alice", "ada"))
    assert [(c.op, c.fact_id, c.line) for c in history] == [
        ("add", FACT_ID, mark),
        ("remove", FACT_ID, mark),
    ]
    exchange = Exchange.objects.get()
    assert exchange.message == "Remember: [erased]!"
    assert exchange.plan[0]["text"] == "Remember: [erased]!"
    assert LearningEvent.objects.get().text == "Remember: [erased]!"
    assert IdempotentReply.objects.get().body == {"id": FACT_ID, "text": "[erased]"}
    proposal = Proposal.objects.get()
    assert (proposal.text, proposal.evidence) == ("[erased]", [{"id": FACT_ID, "text": "[erased]"}])


def test_an_erased_history_line_cannot_be_restored(memory_root):
    shard = user_shard("alice", "ada")
    fact_remember(shard=shard, text=FACT, by="ada")
    fact_forget(shards=[shard], fact_id=FACT_ID, by="ada")
    removal = history_read(memory_root, shard)[-1]
    fact_erase(reach=reach_of_bot("ada"), fact_id=FACT_ID, by="ops", via="tool")
    erased = history_read(memory_root, shard)[-1]
    assert (erased.at, erased.op) == (removal.at, "remove")
    with pytest.raises(InvalidFact):
        fact_restore(change=erased)
    assert remaining(FACT) == []


def test_a_person_erase_reaches_every_bots_shard_of_their_memory_only(memory_root):
    for rel in (ALICE_ADA, ALICE_BEN, BOB_ADA, ADA_OWN):
        write_facts(memory_root, rel, FACT)
    exchange_stored(bot="ben", message=FACT, person="alice")
    exchange_stored(bot="ada", message=FACT, person="bob")

    erased = fact_erase(reach=reach_of_person("alice"), text=FACT, by="alice", via="console")

    assert sorted(c.file for c in erased.removed) == [ALICE_ADA, ALICE_BEN]
    left = {tuple(line.split()[:2]) for line in remaining(FACT)}
    assert {where for kind, where in left if kind == "file"} == {f"{ADA_OWN}:3", f"{BOB_ADA}:3"}
    assert {where for kind, where in left if kind == "index"} == {ADA_OWN, BOB_ADA}
    assert [line for line in remaining(FACT) if line.startswith("exchange")] == [
        f"exchange   exchange {Exchange.objects.get(person='bob').pk} (ada in dm-bob)"
    ]
    assert Exchange.objects.get(person="alice").message == "[erased]"
    assert Exchange.objects.get(person="bob").message == FACT


def test_erasing_what_is_nowhere_is_not_found(memory_root):
    write_facts(memory_root, ADA_OWN, "Something else")
    with pytest.raises(FactNotFound):
        fact_erase(reach=reach_of_bot("ada"), text=FACT, by="ops", via="tool")


def test_an_erase_does_not_touch_other_lines_of_the_history(memory_root):
    shard = Scope("bot", "ada").shard("ada")
    fact_remember(shard=shard, text="Keeps a diary", by="ada")
    fact_remember(shard=shard, text=FACT, by="ada")
    before = (memory_root / "agents/ada/memory/history.jsonl").read_text().splitlines()
    fact_erase(reach=reach_of_bot("ada"), fact_id=FACT_ID, by="ops", via="tool")
    after = (memory_root / "agents/ada/memory/history.jsonl").read_text().splitlines()
    assert after[0] == before[0]
    assert json.loads(after[1])["line"].startswith("[erased ")
    assert len(after) == 3  # the erase's own removal, tombstoned too


@pytest.mark.django_db(transaction=True)
def test_erases_across_bots_in_opposite_orders_never_deadlock(memory_root, monkeypatch):
    # Each erase reaches the shards of bots a and b of one project, listed in opposite orders;
    # the bot locks are taken sorted, so neither waits on the other in a cycle (Postgres would
    # report a deadlock and fail one of them otherwise). A pause after each lock is taken
    # widens the window in which a cycle would form.
    taken = erase.bot_lock

    @contextmanager
    def slow_lock(bot: str):
        with taken(bot):
            time.sleep(0.01)
            yield

    monkeypatch.setattr(erase, "bot_lock", slow_lock)
    scope = Scope("project", "apollo")
    rounds = 15
    texts = [f"Fact {i} of worker {w}" for i in range(rounds) for w in (0, 1)]
    for bot in ("a", "b"):
        write_facts(memory_root, f"{scope.shard(bot).rel}/log/2026-11.md", *texts)
    errors: list[BaseException] = []

    def worker(w: int) -> None:
        order = (scope.shard("a"), scope.shard("b"))
        reach = Reach(shards=order if w == 0 else order[::-1])
        try:
            for i in range(rounds):
                fact_erase(reach=reach, text=f"Fact {i} of worker {w}", by=f"w{w}", via="tool")
        except BaseException as error:  # noqa: BLE001 - reported by the assert below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert not any(t.is_alive() for t in threads)
    assert all(remaining(text) == [] for text in texts)
