"""Facts through the API: what a bot integrator notices — saved lines, refusals that change
nothing, conflicts, retries, hand edits seen on the next call, a lesson saved three times
word for word counted as said three times."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memstore.facts.markdown import fact_identity
from memstore.models import Bot, PersonSettings
from tests.helpers import BotClient, run_command, synced, tree, write_facts


def test_remember_writes_one_line_with_its_metadata(memory_root, bot_a):
    answer = bot_a.post(
        "/facts",
        {
            "text": "Prefers dark mode",
            "scope": "user",
            "tier": "profile",
            "type": "preference",
            "importance": 0.8,
            "src": "room:r1/msg:981",
            "pin": True,
        },
    )
    assert answer.status == 201, answer.body
    assert answer.body["id"] == fact_identity("Prefers dark mode")
    assert answer.body["file"] == "users/alice/memory/by-agent/a/profile.md"
    assert answer.body["meta"] == {
        "type": "preference",
        "importance": "0.8",
        "src": "room:r1/msg:981",
        "pin": "true",
        "by": "a",  # the server says who saved it and how, never the caller
        "via": "api",
    }
    text = (memory_root / answer.body["file"]).read_text()
    assert (
        "Prefers dark mode <!-- type=preference importance=0.8 src=room:r1/msg:981 pin=true "
        "by=a via=api -->" in text
    )


def test_remember_note_tier_and_list_filters(memory_root, bot_a):
    bot_a.post("/facts", {"text": "Ships on Fridays", "tier": "note"})
    bot_a.post("/facts", {"text": "Lives in Lisbon", "tier": "profile"})
    notes = bot_a.get("/facts", tier="note").body
    assert [i["text"] for i in notes["items"]] == ["[note] Ships on Fridays"]
    assert bot_a.get("/facts", q="LISBON").body["total"] == 1
    assert bot_a.get("/facts", month="1999-01").body["total"] == 0


def test_list_pages_through_everything(memory_root, bot_a):
    write_facts(
        memory_root, "agents/a/memory/log/2026-10.md", *[f"Fact number {i}" for i in range(7)]
    )
    seen, offset = [], 0
    while True:
        page = bot_a.get("/facts", limit=3, offset=offset).body
        seen += [item["text"] for item in page["items"]]
        assert page["total"] == 7
        if not page["has_more"]:
            break
        offset += 3
    assert sorted(seen) == sorted(f"Fact number {i}" for i in range(7))


def test_hidden_facts_are_not_listed_to_bots(memory_root, bot_a):
    write_facts(
        memory_root,
        "agents/a/memory/profile.md",
        "Visible one",
        "Secret plan <!-- visibility=hidden -->",
    )
    assert [i["text"] for i in bot_a.get("/facts").body["items"]] == ["Visible one"]


def test_hand_edit_is_seen_on_the_next_call(memory_root, bot_a):
    bot_a.post("/facts", {"text": "Standup is at 9:00", "tier": "profile"})
    assert [i["text"] for i in bot_a.get("/facts").body["items"]] == ["Standup is at 9:00"]
    profile = memory_root / "agents/a/memory/profile.md"
    profile.write_text(profile.read_text().replace("9:00", "9:30") + "- (2026-11-02) Hand added\n")
    assert sorted(i["text"] for i in bot_a.get("/facts").body["items"]) == [
        "Hand added",
        "Standup is at 9:30",
    ]
    profile.write_text(profile.read_text().replace("- (2026-11-02) Hand added\n", ""))
    assert [i["text"] for i in bot_a.get("/facts").body["items"]] == ["Standup is at 9:30"]


def test_hand_edit_is_seen_by_recall(memory_root, bot_a):
    bot_a.post("/facts", {"text": "The wifi password hint is in the blue folder"})
    assert bot_a.get("/recall", query="blue folder").body["items"]
    log = next((memory_root / "agents/a/memory/log").iterdir())
    log.write_text(log.read_text().replace("blue folder", "green binder"))
    found = [i["text"] for i in bot_a.get("/recall", query="green binder").body["items"]]
    assert found == ["The wifi password hint is in the green binder"]


def test_edit_in_place_and_conflict_shows_current_text(memory_root, bot_a):
    saved = bot_a.post("/facts", {"text": "Budget is 10k", "scope": "user", "tier": "profile"}).body
    edited = bot_a.patch(
        f"/facts/{saved['id']}", {"text": "Budget is 12k", "expected_text": "Budget is 10k"}
    )
    assert edited.status == 200, edited.body
    assert edited.body["id"] == fact_identity("Budget is 12k")
    assert edited.body["scope"] == "user"  # found without naming the scope
    before = tree(memory_root)
    stale = bot_a.patch(
        f"/facts/{edited.body['id']}", {"text": "Budget is 15k", "expected_text": "Budget is 10k"}
    )
    assert stale.status == 409
    assert stale.body["code"] == "conflict"
    assert stale.body["detail"]["current"] == "Budget is 12k"
    assert tree(memory_root) == before


def test_edit_and_forget_unknown_fact(memory_root, bot_a):
    missing = "0123456789abcdef"
    assert bot_a.patch(f"/facts/{missing}", {"text": "x"}).status == 404
    assert bot_a.delete(f"/facts/{missing}").body["code"] == "not_found"
    assert bot_a.post("/facts/forget", {"text": "never said"}).status == 404
    assert bot_a.patch("/facts/not-an-id", {"text": "x"}).status == 422


def test_forget_by_id_with_delete(memory_root, bot_a):
    saved = bot_a.post("/facts", {"text": "Temporary fact"}).body
    answer = bot_a.delete(f"/facts/{saved['id']}")
    assert answer.status == 200
    assert answer.body["removed"][0]["line"].endswith("Temporary fact <!-- by=a via=api -->")
    assert bot_a.get("/facts").body["total"] == 0


@pytest.mark.parametrize(
    "fact,code",
    [
        ({"text": ""}, "invalid_request"),
        ({"text": "x" * 501}, "invalid_request"),
        ({"text": "two\nlines"}, "invalid_fact"),
        ({"text": "nul \u0000 char"}, "invalid_request"),
        ({"text": "My password is hunter22", "scope": "user"}, "secret_refused"),
        ({"text": "ok", "scope": "project"}, "invalid_request"),
        ({"text": "ok", "tier": "forever"}, "invalid_request"),
        ({"text": "ok", "importance": 2}, "invalid_request"),
    ],
)
def test_refused_remember_writes_nothing(memory_root, bot_a, fact, code):
    before = synced(memory_root)
    answer = bot_a.post("/facts", fact)
    assert answer.status == 422, answer.body
    assert answer.body["code"] == code
    assert answer.body["message"]
    assert tree(memory_root) == before


def test_excluded_topic_of_the_person_is_refused(memory_root, bot_a):
    user = get_user_model().objects.create_user("alice")
    PersonSettings.objects.create(user=user, excluded_topics=["health"])
    answer = bot_a.post("/facts", {"text": "Has a health appointment on Monday"})
    assert answer.status == 422
    assert answer.body["code"] == "topic_excluded"
    assert tree(memory_root) == {}


def test_idempotency_key_makes_a_retry_harmless(memory_root, bot_a):
    fact = {"text": "Booked the Lisbon flight", "tier": "profile"}
    first = bot_a.post("/facts", fact, HTTP_IDEMPOTENCY_KEY="k-1")
    after_first = tree(memory_root)
    again = bot_a.post("/facts", fact, HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status, again.status) == (201, 201)
    assert again.body == first.body
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert tree(memory_root) == after_first
    reused = bot_a.post("/facts", {"text": "Something else"}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert reused.status == 422
    assert reused.body["code"] == "idempotency_key_reused"
    assert tree(memory_root) == after_first


def test_idempotency_keys_belong_to_one_bot(memory_root, tokens):
    a, b = BotClient(token=tokens["a"]), BotClient(token=tokens["b"])
    assert a.post("/facts", {"text": "Same key"}, HTTP_IDEMPOTENCY_KEY="k").status == 201
    answer = b.post("/facts", {"text": "Different text"}, HTTP_IDEMPOTENCY_KEY="k")
    assert answer.status == 201
    assert answer.body["bot"] == "b"


def test_a_failed_call_is_not_replayed(memory_root, bot_a):
    group = BotClient(token=bot_a.token, room_id="team", room_kind="group")
    assert (
        group.post("/facts", {"text": "x", "scope": "user"}, HTTP_IDEMPOTENCY_KEY="k").status == 403
    )
    assert (
        bot_a.post("/facts", {"text": "x", "scope": "user"}, HTTP_IDEMPOTENCY_KEY="k").status == 201
    )


def test_group_room_call_marks_the_bot_as_in_groups(memory_root, bot_a):
    bot_a.get("/facts")
    assert not Bot.objects.get(slug="a").in_groups
    BotClient(token=bot_a.token, room_id="team", room_kind="group").get("/facts")
    assert Bot.objects.get(slug="a").in_groups
    assert bot_a.get("/me").body["in_groups"] is True


def test_oversized_body_is_refused_before_reading(memory_root, bot_a, settings):
    settings.API_MAX_BODY_BYTES = 1024
    answer = bot_a.post("/facts", {"text": "y" * 2000})
    assert answer.status == 413
    assert answer.body == {
        "code": "body_too_large",
        "message": "The request body is over 1 KiB; this API refuses larger bodies.",
        "detail": {"limit_bytes": 1024},
    }
    assert tree(memory_root) == {}


def test_unparseable_json_and_unknown_paths_answer_in_json(bot_a):
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Bearer {bot_a.token}")
    bad = client.post(
        "/api/v1/facts",
        "{not json",
        content_type="application/json",
        HTTP_X_ROOM_ID="r1",
        HTTP_X_ROOM_KIND="bot",
    )
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_request")
    missing = client.get("/api/v1/no-such-thing")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


def test_missing_context_is_a_validation_error(bot_a):
    answer = bot_a.get("/facts", HTTP_X_ROOM_KIND="kitchen")
    assert answer.status == 422
    assert answer.body["detail"]["errors"][0]["where"] == "header.X-Room-Kind"


def test_more_than_three_projects_or_bad_names_are_refused(bot_a):
    assert bot_a.get("/facts", HTTP_X_PROJECTS="apollo,b,c,d").status == 422
    assert bot_a.get("/facts", HTTP_X_ROOM_ID="../etc").status == 422
    assert bot_a.get("/facts", HTTP_X_PERSON="../root").status == 422


def test_wrong_method_answers_in_json(bot_a):
    answer = bot_a.get("/facts/forget")
    assert answer.status == 405
    assert answer.body["code"] == "method_not_allowed"
    assert answer.body["detail"]["allowed"] == ["POST"]


def test_a_lesson_saved_three_times_through_the_api_is_a_recurring_lesson(bot_a, settings):
    settings.AGENT_LESSONS = "propose"
    lesson = {"text": "Run the migrations before deploying the API", "type": "learning"}
    assert [bot_a.post("/facts", lesson).status for _ in range(3)] == [201, 200, 200]
    said = run_command("upkeep", "a", "--lessons")
    assert said.startswith("a: 1 lesson recurred in a's own memory (3 times)"), said
