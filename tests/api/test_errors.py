"""The error map from the caller's side: every refusal is JSON `{code, message, detail}`, unknown
paths and wrong methods included, and the same condition gets the same status everywhere."""

import pytest
from django.test import Client

from memstore.errors import MemstoreError
from memstore.rooms.access import Context, Room, readable_scope, writable_shard
from memstore.vocabulary import ROOM_KINDS


@pytest.mark.parametrize(
    "method,path",
    [
        ("POST", "/api/v1/facts/"),
        ("GET", "/api/v1/facts/"),
        ("DELETE", "/api/nope"),
        ("PUT", "/api/"),
        ("GET", "/api/"),
        ("PATCH", "/api/v2/facts"),
        ("POST", "/api/v1/facts/0123456789abcdef/extra"),
    ],
)
def test_unknown_paths_answer_the_json_404_whatever_the_method(db, method, path):
    # CSRF checks on, as for a real client: the API has no CSRF page to show.
    client = Client(HTTP_HOST="localhost", enforce_csrf_checks=True)
    response = client.generic(method, path, '{"text": "x"}', content_type="application/json")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert (body["code"], body["detail"]) == ("not_found", {})
    assert body["message"].startswith(f"No API endpoint at {path}.")


def test_a_trailing_slash_is_pointed_out(db):
    answer = Client(HTTP_HOST="localhost").post("/api/v1/facts/", {}).json()
    assert answer["message"] == (
        "No API endpoint at /api/v1/facts/. API paths have no trailing slash."
    )


def test_a_wrong_method_lists_the_allowed_ones(db):
    client = Client(HTTP_HOST="localhost", enforce_csrf_checks=True)
    response = client.put("/api/v1/facts", "{}", content_type="application/json")
    assert response.status_code == 405
    assert response["Allow"] == "GET, POST"
    assert response.json() == {
        "code": "method_not_allowed",
        "message": "PUT is not allowed here; use GET, POST.",
        "detail": {"allowed": ["GET", "POST"]},
    }


def outcome(call, *args) -> tuple[str, int] | str:
    try:
        call(*args)
    except MemstoreError as exc:
        return exc.code, exc.status
    return "ok"


@pytest.mark.parametrize("room_kind", ROOM_KINDS)
@pytest.mark.parametrize(
    "kind,name",
    [("bot", None), ("user", None), ("project", None), ("project", "zeus"), ("x", None)],
)
def test_reading_and_writing_refuse_the_same_request_alike(room_kind, kind, name):
    person = "alice" if room_kind == "direct" else None
    ctx = Context(bot="a", room=Room("r1", room_kind), person=person, joined=frozenset({"apollo"}))
    read = outcome(readable_scope, ctx, kind, name)
    assert read == outcome(writable_shard, ctx, kind, name)
    expected = {
        ("user", None): "ok" if room_kind == "direct" else ("forbidden", 403),
        ("project", None): ("invalid_fact", 422),
        ("project", "zeus"): ("forbidden", 403),
        ("x", None): ("invalid_fact", 422),
    }
    assert read == expected.get((kind, name), "ok")


@pytest.mark.parametrize(
    "method,path,body,query",
    [
        ("POST", "/facts", {"text": "x", "scope": "project"}, {}),
        ("GET", "/facts", None, {"scope": "project"}),
        ("POST", "/facts/forget", {"text": "x", "scope": "project"}, {}),
        ("PATCH", "/facts/0123456789abcdef", {"text": "x", "scope": "project"}, {}),
        ("DELETE", "/facts/0123456789abcdef", None, {"scope": "project"}),
    ],
)
def test_an_unnamed_project_is_invalid_for_reads_and_writes(bot_a, method, path, body, query):
    answer = bot_a.call(method, path, body, **query)
    assert (answer.status, answer.body["code"]) == (422, "invalid_request")
    assert "name the project when scope is project" in answer.body["message"]


def test_user_memory_outside_direct_rooms_is_forbidden_for_reads_and_writes(bot_a):
    bot_a.room_kind, bot_a.person = "group", ""
    read = bot_a.get("/facts", scope="user")
    write = bot_a.post("/facts", {"text": "Likes jazz", "scope": "user"})
    assert (
        (read.status, read.body["code"])
        == (write.status, write.body["code"])
        == (
            403,
            "forbidden",
        )
    )
