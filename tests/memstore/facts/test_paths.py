"""Scopes, shards and paths (SPEC §3): strict names, and paths that say whose file it is."""

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.errors import InvalidName
from memstore.facts.paths import (
    FileLocation,
    Scope,
    Shard,
    all_scopes,
    check_person,
    check_room,
    check_slug,
    locate,
    scope_shards,
    shard_files,
)

TRICKS = [
    "",
    ".",
    "..",
    "../x",
    "x/..",
    "a/b",
    "a\\b",
    "/abs",
    "nul\x00",
    ".hidden",
    "-dash-first",
    "x" * 65,
    "tab\tname",
    "new\nline",
    " space",
    "ünïcode",
    "日本",
    "ａｂｃ",  # full-width letters
    None,
    42,
]


@pytest.mark.parametrize("name", TRICKS + ["UPPER", "under_score", "a.b", "a@b"])
def test_bot_and_project_slugs_refuse_tricks(name):
    with pytest.raises(InvalidName, match="is not allowed"):
        check_slug(name)
    with pytest.raises(InvalidName, match="Project name"):
        check_slug(name, "project")


@pytest.mark.parametrize("name", TRICKS + ["a..b"])
def test_person_names_refuse_tricks(name):
    with pytest.raises(InvalidName, match="Person name"):
        check_person(name)


@pytest.mark.parametrize("name", TRICKS + ["a..b"])
def test_room_ids_refuse_tricks(name):
    with pytest.raises(InvalidName, match="Room id"):
        check_room(name)


@pytest.mark.parametrize("name", ["ada", "a", "bot-2", "0", "x" * 63])
def test_good_slugs(name):
    assert name == check_slug(name)


@pytest.mark.parametrize("name", ["alice", "Alice.Smith", "a_b", "a@example.com", "a+b-c"])
def test_good_people(name):
    assert name == check_person(name)


def test_the_message_shows_a_long_name_shortened():
    with pytest.raises(InvalidName) as info:
        check_slug("x" * 200)
    assert len(str(info.value)) < 200


def test_scope_and_shard_validate():
    with pytest.raises(InvalidName):
        Scope("team", "x")
    with pytest.raises(InvalidName):
        Scope("user", "../etc")
    with pytest.raises(InvalidName, match="cannot write bot 'ada'"):
        Scope("bot", "ada").shard("bob")
    with pytest.raises(InvalidName):
        Scope("project", "apollo").shard("../bob")


@pytest.mark.parametrize(
    ("scope", "bot", "tier_file", "rel"),
    [
        (Scope("bot", "ada"), "ada", "profile", "agents/ada/memory/profile.md"),
        (Scope("bot", "ada"), "ada", "log", "agents/ada/memory/log/2026-03.md"),
        (Scope("user", "alice"), "ada", "profile", "users/alice/memory/by-agent/ada/profile.md"),
        (
            Scope("project", "apollo"),
            "bob",
            "log",
            "projects/apollo/memory/by-agent/bob/log/2026-03.md",
        ),
        (Scope("room", "r:42"), "ada", "log", "rooms/r:42/memory/by-agent/ada/log/2026-03.md"),
    ],
)
def test_locate_round_trips(scope, bot, tier_file, rel):
    shard = scope.shard(bot)
    assert rel == shard.file_rel(tier_file=tier_file, day=date(2026, 3, 9))
    month = "2026-03" if tier_file == "log" else ""
    assert FileLocation(shard=shard, tier_file=tier_file, month=month) == locate(rel)
    assert rel == locate(rel).rel
    assert str(scope) == str(locate(rel).shard.scope)


@pytest.mark.parametrize(
    "rel",
    [
        "",
        "agents/ada/memory/notes.md",
        "agents/ada/memory/log/2026-13.md",
        "agents/ada/memory/log/2026-3.md",
        "agents/ada/memory/log/.2026-03.md.123.ab.tmp",
        "agents/ada/memory/history.jsonl",
        "agents/../memory/profile.md",
        "agents/.ada/memory/profile.md",
        "users/alice/memory/profile.md",  # shared scopes need a by-agent shard
        "users/alice/memory/by-agent/Ada/profile.md",
        "teams/x/memory/by-agent/ada/profile.md",
        "projects/apollo/memory/by-agent/ada/log/2026-03.md/extra",
    ],
)
def test_locate_refuses_what_is_no_memory_file(rel):
    assert locate(rel) is None


def _touch(root, rel, text="# x\n"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_listing_files_and_shards_on_disk(memory_root):
    for rel in [
        "agents/ada/memory/profile.md",
        "agents/ada/memory/log/2026-02.md",
        "agents/ada/memory/log/2026-01.md",
        "agents/ada/memory/log/.2026-01.md.1.ab.tmp",  # a writer's leftover temp file
        "agents/ada/memory/log/notes.txt",
        "users/alice/memory/by-agent/bob/profile.md",
        "users/alice/memory/by-agent/ada/log/2026-01.md",
        "users/alice/memory/by-agent/Bad Name/profile.md",
        "users/.sneaky/memory/by-agent/ada/profile.md",
    ]:
        _touch(memory_root, rel)
    ada = Scope("bot", "ada")
    assert shard_files(memory_root, ada.shard("ada")) == [
        "agents/ada/memory/profile.md",
        "agents/ada/memory/log/2026-01.md",
        "agents/ada/memory/log/2026-02.md",
    ]
    alice = Scope("user", "alice")
    assert [alice.shard("ada"), alice.shard("bob")] == scope_shards(memory_root, alice)
    assert [shard_files(memory_root, s) for s in scope_shards(memory_root, alice)] == [
        ["users/alice/memory/by-agent/ada/log/2026-01.md"],
        ["users/alice/memory/by-agent/bob/profile.md"],
    ]
    assert [ada, alice] == all_scopes(memory_root)
    assert scope_shards(memory_root, Scope("project", "nothing-here")) == []


# Scope and shard keys (`kind:name`, `kind:name|bot`): what str() and .key write, parse reads.
_SLUGS = st.from_regex(r"\A[a-z0-9][a-z0-9-]{0,20}\Z")
_SCOPES = st.one_of(
    st.builds(lambda s: Scope("bot", s), _SLUGS),
    st.builds(lambda s: Scope("project", s), _SLUGS),
    st.builds(lambda s: Scope("user", s), st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.@+-]{0,20}\Z")),
    st.builds(lambda s: Scope("room", s), st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.:-]{0,20}\Z")),
)


@given(_SCOPES, _SLUGS)
def test_scope_and_shard_keys_round_trip(scope, bot):
    assert Scope.parse(str(scope)) == scope
    shard = scope.shard(scope.name if scope.kind == "bot" else bot)
    assert Shard.parse(shard.key) == shard


@pytest.mark.parametrize(
    "key", ["", "ada", "bot", "team:ada", "bot:", "bot:../x", "user:a/b", "bot:ada\x00", ":ada"]
)
def test_a_bad_scope_key_is_refused_saying_why(key):
    with pytest.raises(InvalidName):
        Scope.parse(key)


@pytest.mark.parametrize("key", ["bot:ada", "bot:ada|", "bot:ada|eve", "user:sam|../x", "|ada"])
def test_a_bad_shard_key_is_refused(key):
    with pytest.raises(InvalidName):
        Shard.parse(key)
