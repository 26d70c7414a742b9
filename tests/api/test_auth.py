"""Bearer tokens: stored hashed, one bot each, revocable; and the `manage.py bots` command."""

import hashlib

import pytest
from django.core.management import CommandError
from django.test import Client

from memstore.models import BotToken
from memstore.registry.bots import bot_create, project_join
from memstore.registry.tokens import Caller, token_create, token_revoke, token_verify, tokens_list
from tests.helpers import BotClient, run_command


def test_calls_without_a_valid_token_are_refused(db, memory_root):
    client = Client(HTTP_HOST="localhost", HTTP_X_ROOM_ID="r1", HTTP_X_ROOM_KIND="bot")
    for headers in (
        {},
        {"HTTP_AUTHORIZATION": "Bearer mct_nope"},
        {"HTTP_AUTHORIZATION": "Basic eDp5"},
    ):
        response = client.get("/api/v1/facts", **headers)
        assert response.status_code == 401
        assert response.json()["code"] == "unauthorized"
        assert response["WWW-Authenticate"].startswith("Bearer")
    health = client.get("/api/v1/health")  # no token needed
    assert (health.status_code, health.json()["status"]) == (200, "ok")


def test_token_is_stored_hashed_and_names_its_bot(db):
    bot_create(slug="scout")
    new = token_create(bot="scout", name="laptop")
    row = BotToken.objects.get()
    assert row.digest == hashlib.sha256(new.token.encode()).hexdigest()
    assert new.token not in {row.digest, row.prefix, row.name}
    assert new.token.startswith(row.prefix)
    assert token_verify(token=new.token) == Caller(bot="scout", joined=frozenset())
    project_join(bot="scout", project="apollo")
    project_join(bot="scout", project="zeus")
    assert token_verify(token=new.token) == Caller(
        bot="scout", joined=frozenset({"apollo", "zeus"})
    )
    assert token_verify(token=new.token + "x") is None
    assert BotToken.objects.get().last_used_at is not None


def test_revoked_token_stops_working(db, memory_root):
    bot_create(slug="scout")
    new = token_create(bot="scout")
    client = BotClient(token=new.token, room_kind="routine")
    assert client.get("/me").body["bot"] == "scout"
    token_revoke(prefix=new.info.prefix)
    assert client.get("/me").status == 401
    assert tokens_list(bot="scout")[0].revoked_at is not None


def test_bots_command_end_to_end(db, memory_root):
    assert "Created bot scout" in run_command("bots", "create", "scout", "--name", "Scout")
    token = run_command("bots", "token", "scout", "--name", "ci").strip()
    assert token.startswith("mct_")
    assert "joined project apollo" in run_command("bots", "join", "scout", "apollo")
    assert "was already in" in run_command("bots", "join", "scout", "apollo")
    assert run_command("bots", "list").strip() == "scout (Scout)  apollo  1 active token(s)"
    listing = run_command("bots", "tokens", "scout")
    assert token[:12] in listing and "active" in listing and token not in listing
    me = BotClient(token=token, room_kind="bot").get("/me").body
    assert me == {
        "bot": "scout",
        "display_name": "Scout",
        "in_groups": False,
        "projects": ["apollo"],
        "grants": ["memory:read", "memory:write"],
        "read_only_projects": [],
    }
    assert "Revoked token" in run_command("bots", "revoke", token[:12])
    assert "revoked" in run_command("bots", "tokens", "scout")
    assert BotClient(token=token, room_kind="bot").get("/me").status == 401
    assert "left project apollo" in run_command("bots", "leave", "scout", "apollo")
    assert run_command("bots", "list").strip() == "scout (Scout)  no projects  0 active token(s)"


@pytest.mark.parametrize(
    "args,message",
    [
        (("token", "ghost"), "No bot 'ghost'"),
        (("create", "Bad Slug"), "not allowed"),
        (("revoke", "mct_"), "at least the first 8"),
        (("revoke", "mct_zzzzzzzz"), "No token starts with"),
        (("join", "ghost", "apollo"), "No bot 'ghost'"),
    ],
)
def test_bots_command_errors_are_plain(db, args, message):
    with pytest.raises(CommandError, match=message):
        run_command("bots", *args)


def test_creating_a_bot_twice_is_refused(db):
    run_command("bots", "create", "scout")
    with pytest.raises(CommandError, match="already exists"):
        run_command("bots", "create", "scout")
