"""Who is calling, remembered per process: a warm recall costs six round trips counting BEGIN
and COMMIT (before, twelve and a usage read; then eight), and a revoked token, an unlinked
person or a reset room is refused on the very next call (the authorization generation,
memstore/registry/generation.py). Several server processes: tests/deploy/test_auth_workers.py.
The sync's stat check rides in the terms + versions statement, so a hand edit is still found
by the very next recall (and recorded as one)."""

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memstore.models import PersonLink
from memstore.registry.bots import project_leave
from memstore.registry.people import person_add, person_link, person_unlink
from memstore.registry.tokens import token_revoke
from memstore.rooms.tickets import room_reset
from tests.api.test_prompt_budget import BUDGET_MS, MARGIN_MS, Holder
from tests.helpers import BotClient, log, meaning_ready

# Outside a test transaction, as in production: each read is its own outermost transaction.
pytestmark = pytest.mark.django_db(transaction=True)

FACTS = ("- (2026-11-01) Prefers tea over coffee", "- (2026-11-02) Lives in Lisbon with Sam")


@pytest.fixture
def warm(memory_root, tokens) -> BotClient:
    log(memory_root, "bot", "a", "2026-11", *FACTS, bot="a")
    meaning_ready()
    client = BotClient(token=tokens["a"], projects="apollo")
    for query in ("tea", "where does she live", "coffee"):
        assert client.get("/recall", query=query).status == 200
    return client


def statements(client: BotClient, query: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        answer = client.get("/recall", query=query)
    assert answer.status == 200, answer.body
    assert answer.body["items"], "the test wants a recall that finds something"
    return [q["sql"] for q in captured.captured_queries]


def test_a_warm_recall_runs_seven_round_trips_in_one_transaction(warm):
    sql = statements(warm, "who does she live with")
    # the generation; then one transaction: timeouts; the sync's file rows with the terms and
    # versions; the rows with the candidates' usage counts (the usage boost); after its commit,
    # the one statement recording what the recall returned (memory sources: which memories
    # shaped a reply), without waiting for the disk
    assert len(sql) <= 7 and sql.count("BEGIN") == 1 and sql.count("COMMIT") == 1, "\n".join(sql)
    assert len([s for s in sql if s not in ("BEGIN", "COMMIT")]) <= 5, "\n".join(sql)
    assert sum("memstore_servedrecall" in s for s in sql) == 1
    assert sum("memstore_factusage" in s for s in sql) == 1
    # the token, the person link and the room binding are not asked again, only the generation
    assert not [s for s in sql if "memstore_bottoken" in s or "memstore_personlink" in s]
    assert not [s for s in sql if "memstore_roombinding" in s]
    assert sum("memstore_authgeneration" in s for s in sql) == 1


def test_a_revoked_token_is_refused_on_the_next_call(warm, tokens):
    token_revoke(prefix=tokens["a"][:12])
    answer = warm.get("/recall", query="tea")
    assert (answer.status, answer.body["code"]) == (401, "unauthorized")


def test_an_unlinked_person_is_refused_on_the_next_call(warm):
    assert person_unlink(person="alice", bot="a")
    answer = warm.get("/recall", query="tea")
    assert (answer.status, answer.body["code"]) == (403, "person_not_linked")


def test_a_link_deleted_behind_the_registry_is_refused_too(warm):
    # A trigger moves the generation, so even a write that skips memstore's functions counts.
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {PersonLink._meta.db_table}")
    assert warm.get("/recall", query="tea").status == 403


def test_a_reset_room_bound_to_someone_else_is_refused_for_the_first(warm):
    person_add(name="bob")
    person_link(person="bob", bot="a")
    assert room_reset(room_id="r1")
    bob = BotClient(token=warm.token, person="bob", projects="apollo")
    assert bob.get("/recall", query="tea").status == 200  # binds r1 to bob
    answer = warm.get("/recall", query="tea")  # alice, in what is now bob's direct room
    assert (answer.status, answer.body["code"]) == (409, "room_conflict")


def test_a_project_left_is_out_of_reach_on_the_next_call(warm):
    assert warm.get("/recall", query="tea").status == 200
    project_leave(bot="a", project="apollo")
    assert warm.get("/recall", query="tea").status == 403


def test_a_hand_edit_is_found_by_the_very_next_recall(warm, memory_root):
    assert not warm.get("/recall", query="cello").body["items"]
    log(memory_root, "bot", "a", "2026-11", *FACTS, "- (2026-11-03) Plays the cello", bot="a")
    with CaptureQueriesContext(connection) as captured:
        answer = warm.get("/recall", query="cello")
    assert [item["text"] for item in answer.body["items"]] == ["Plays the cello"]
    assert answer.body["stale"] is False
    # the folded check saw the change, so the sync wrote it and the read ran again
    assert any("INSERT INTO" in q["sql"] for q in captured.captured_queries)
    history = "".join(p.read_text() for p in memory_root.rglob("history.jsonl"))
    assert "hand-edit" in history and "Plays the cello" in history


def _files_locked():
    # What a rebuild holds for its whole run (TRUNCATE of the file rows).
    from django.db import transaction

    class Locked:
        def __enter__(self):
            self.atomic = transaction.atomic()
            self.atomic.__enter__()
            with connection.cursor() as cursor:
                cursor.execute("LOCK TABLE memstore_memoryfile IN ACCESS EXCLUSIVE MODE")

        def __exit__(self, *exc):
            self.atomic.__exit__(None, None, None)

    return Locked()


def test_a_rebuild_holding_the_file_rows_does_not_stall_the_folded_read(warm, settings):
    # The stat check now rides in the read's first statement, which waits for that lock: the
    # read's own timeouts still bound it, and the next call after the rebuild is served.
    settings.MEMORY_READ_BUDGET_MS = BUDGET_MS
    with Holder(_files_locked):
        started = time.monotonic()
        answer = warm.get("/recall", query="tea")
        elapsed = (time.monotonic() - started) * 1000
    print(f"GET /recall with memstore_memoryfile locked: {elapsed:.0f} ms")
    assert (answer.status, answer.body["memory"], answer.body["items"]) == (200, "unavailable", [])
    assert elapsed < BUDGET_MS + MARGIN_MS
    again = warm.get("/recall", query="tea")
    assert again.body["memory"] == "ok" and again.body["items"]
