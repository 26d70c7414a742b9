"""The authorization matrix (SPEC §6): every operation × room kind × scope × own/other bot, and
every operation × a call a bot can't forge (person, link, room binding, legacy room shard).

Bot `a` calls; bot `b` is the other bot. Both joined project apollo; neither joined zeus (a still
has an old shard there). Both may act for alice; carol is registered but linked to b only.
Every scope holds one fact written by each bot, with its own code word. Each case asserts the
status, what the answer shows, and which files changed: exactly the caller's own shard when
allowed, nothing at all when refused. Room tickets are tests/api/test_tickets.py.
"""

import pytest

from memstore.models import Bot, Person, RoomBinding
from memstore.registry.people import person_add, person_link
from memstore.rules.failures import failures_recent
from tests.helpers import BotClient, synced, tree, write_facts

KINDS = ["direct", "group", "routine", "bot", "event"]
SCOPES = ["bot", "user", "project", "unjoined", "room"]
OWNERS = ["own", "other"]
BOT = {"own": "a", "other": "b"}
WORD = {  # one code word per (owner, scope), so recall can look for exactly one fact
    ("own", "bot"): "aardvark",
    ("own", "user"): "albatross",
    ("own", "project"): "anaconda",
    ("own", "unjoined"): "antelope",
    ("own", "room"): "armadillo",
    ("other", "bot"): "baboon",
    ("other", "user"): "badger",
    ("other", "project"): "barracuda",
    ("other", "unjoined"): "beaver",
    ("other", "room"): "bison",
}


def shard_dir(scope: str, bot: str) -> str:
    return {
        "bot": f"agents/{bot}/memory",
        "user": f"users/alice/memory/by-agent/{bot}",
        "project": f"projects/apollo/memory/by-agent/{bot}",
        "unjoined": f"projects/zeus/memory/by-agent/{bot}",
        "room": f"rooms/r1/memory/by-agent/{bot}",
    }[scope]


def text_of(owner: str, scope: str) -> str:
    return f"The team mascot is a {WORD[owner, scope]}"


def scope_params(scope: str) -> dict:
    return {
        "bot": {"scope": "bot"},
        "user": {"scope": "user"},
        "project": {"scope": "project", "project": "apollo"},
        "unjoined": {"scope": "project", "project": "zeus"},
        "room": {"scope": "room"},
    }[scope]


def may_write(kind: str, scope: str) -> bool:
    return scope in ("bot", "project") or (scope == "user" and kind == "direct")


def may_read(kind: str, scope: str) -> bool:
    return (
        scope in ("bot", "project")
        or (scope == "user" and kind == "direct")
        or (scope == "room" and kind == "group")
    )


def sees(kind: str, scope: str, owner: str) -> bool:
    """Whether bot a, reading in this room, sees this fact (other bots' own memory: never)."""
    return may_read(kind, scope) and not (scope == "bot" and owner == "other")


@pytest.fixture
def workspace(memory_root, tokens):
    for owner, bot in BOT.items():
        for scope in SCOPES:
            write_facts(memory_root, f"{shard_dir(scope, bot)}/profile.md", text_of(owner, scope))
    return synced(memory_root)


def client(tokens, kind: str, scope: str) -> BotClient:
    # Naming a project in play that the bot has not joined is refused for every operation.
    projects = "zeus" if scope == "unjoined" else "apollo"
    return BotClient(token=tokens["a"], room_kind=kind, projects=projects)


def changed(before: dict, after: dict) -> set[str]:
    return {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)}


def own_shard_files(after: dict, scope: str) -> set[str]:
    return {rel for rel in after if rel.startswith(shard_dir(scope, "a") + "/")}


cases = pytest.mark.parametrize(
    "kind,scope,owner", [(k, s, o) for k in KINDS for s in SCOPES for o in OWNERS]
)


@cases
def test_remember(memory_root, tokens, workspace, kind, scope, owner):
    # "other": saving the very text another bot holds; it must land in a's shard, never in b's.
    fact = {"text": text_of(owner, scope) + " indeed", **scope_params(scope)}
    if scope == "room":
        fact["scope"] = "room"
    answer = client(tokens, kind, scope).post("/facts", fact)
    after = tree(memory_root)
    if scope == "room":
        assert answer.status == 422  # legacy room memory is not a scope anyone can write
        assert after == workspace
    elif may_write(kind, scope) and scope != "unjoined":
        assert answer.status == 201, answer.body
        assert answer.body["bot"] == "a"
        assert answer.body["file"].startswith(shard_dir(scope, "a") + "/")
        assert changed(workspace, after) <= own_shard_files(after, scope)
        assert fact["text"] in (memory_root / answer.body["file"]).read_text()
    else:
        assert answer.status == 403, answer.body
        assert answer.body["code"] == "forbidden"
        assert after == workspace


@cases
def test_forget(memory_root, tokens, workspace, kind, scope, owner):
    answer = client(tokens, kind, scope).post(
        "/facts/forget", {"text": text_of(owner, scope), **scope_params(scope)}
    )
    after = tree(memory_root)
    allowed = scope in ("bot", "project", "room") or (scope == "user" and kind == "direct")
    if not allowed:
        assert answer.status == 403, answer.body
        assert after == workspace
    elif owner == "other":
        # Another bot's own memory is not this bot's business; another bot's shard of a scope
        # this bot reads is: the answer says the fact still reaches its prompt.
        expected = (404, "not_found") if scope == "bot" else (409, "held_by_other_bots")
        assert (answer.status, answer.body["code"]) == expected, answer.body
        assert after == workspace
    else:
        assert answer.status == 200, answer.body
        assert answer.body["forgotten"] == 1
        assert changed(workspace, after) <= own_shard_files(after, scope)
        assert (
            text_of(owner, scope)
            not in (memory_root / shard_dir(scope, "a") / "profile.md").read_text()
        )


@cases
def test_edit(memory_root, tokens, workspace, kind, scope, owner):
    fact_id = _fact_id(text_of(owner, scope))
    body = {"text": "The team mascot changed", **scope_params(scope)}
    if scope == "room":
        body["scope"] = "room"
    answer = client(tokens, kind, scope).patch(f"/facts/{fact_id}", body)
    after = tree(memory_root)
    if scope == "room":
        assert answer.status == 422  # legacy room memory is read-only: not an edit scope
        assert after == workspace
    elif not (may_write(kind, scope) and scope != "unjoined"):
        assert answer.status == 403, answer.body
        assert after == workspace
    elif owner == "other":
        assert answer.status == 404, answer.body
        assert after == workspace
    else:
        assert answer.status == 200, answer.body
        assert changed(workspace, after) <= own_shard_files(after, scope)
        profile = (memory_root / shard_dir(scope, "a") / "profile.md").read_text()
        assert "The team mascot changed" in profile
        assert text_of(owner, scope) not in profile


@cases
def test_list(memory_root, tokens, workspace, kind, scope, owner):
    answer = client(tokens, kind, scope).get("/facts", **scope_params(scope))
    assert tree(memory_root) == workspace
    if scope == "unjoined" or not may_read(kind, scope):
        assert answer.status == 403, answer.body
        return
    assert answer.status == 200, answer.body
    texts = {item["text"] for item in answer.body["items"]}
    assert (text_of(owner, scope) in texts) == sees(kind, scope, owner)


@cases
def test_list_everything_readable(memory_root, tokens, workspace, kind, scope, owner):
    # Without a scope filter the room's readable scopes are merged; same visibility rule.
    answer = client(tokens, kind, scope).get("/facts", limit=200)
    if scope == "unjoined":
        assert answer.status == 403
        return
    texts = {item["text"] for item in answer.body["items"]}
    assert (text_of(owner, scope) in texts) == sees(kind, scope, owner)


@cases
def test_recall(memory_root, tokens, workspace, kind, scope, owner):
    answer = client(tokens, kind, scope).get("/recall", query=WORD[owner, scope])
    assert tree(memory_root) == workspace
    if scope == "unjoined":
        assert answer.status == 403
        return
    assert answer.status == 200, answer.body
    texts = {item["text"] for item in answer.body["items"]}
    assert (text_of(owner, scope) in texts) == sees(kind, scope, owner)


@cases
def test_prompt(memory_root, tokens, workspace, kind, scope, owner):
    answer = client(tokens, kind, scope).get("/prompt")
    assert tree(memory_root) == workspace
    if scope == "unjoined":
        assert answer.status == 403
        return
    assert answer.status == 200, answer.body
    # The prompt has no legacy room block (SPEC §5.2): only the person, projects and own memory.
    expected = sees(kind, scope, owner) and scope != "room"
    assert (text_of(owner, scope) in answer.body["text"]) == expected


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("scope", ["project", "unjoined"])
def test_prompt_changes(memory_root, tokens, workspace, kind, scope):
    answer = client(tokens, kind, scope).post("/prompt/changes", {"previous": ""})
    assert answer.status == (403 if scope == "unjoined" else 200), answer.body
    assert tree(memory_root) == workspace


def test_token_acts_only_as_its_bot(memory_root, tokens, workspace):
    b = BotClient(token=tokens["b"], projects="apollo")
    listed = b.get("/facts", limit=200).body["items"]
    assert {item["bot"] for item in listed} == {"a", "b"}  # shared scopes merge both shards
    assert text_of("own", "bot") not in {item["text"] for item in listed}
    # Naming another bot or shard in a write is not part of the contract: refused, nothing written.
    for extra in ({"bot": "a"}, {"shard": "a"}, {"by": "a"}):
        answer = b.post("/facts", {"text": "Sneaky", **extra})
        assert answer.status == 422
    assert tree(memory_root) == workspace


def test_group_room_user_memory_says_why(memory_root, tokens, workspace):
    group = BotClient(token=tokens["a"], room_kind="group", projects="apollo")
    for answer in (
        group.post("/facts", {"text": "Likes jazz", "scope": "user"}),
        group.get("/facts", scope="user"),
        group.patch(f"/facts/{_fact_id(text_of('own', 'user'))}", {"text": "x", "scope": "user"}),
        group.post("/facts/forget", {"text": text_of("own", "user"), "scope": "user"}),
    ):
        assert answer.status == 403
        assert "stays in their direct rooms" in answer.body["message"]
    assert tree(memory_root) == workspace


def test_direct_room_needs_the_person(memory_root, tokens, workspace):
    answer = BotClient(token=tokens["a"], person="").get("/facts")
    assert answer.status == 403
    assert "person" in answer.body["message"]


def test_forget_without_scope_covers_every_writable_shard(memory_root, tokens):
    # The same fact in a's own memory, a's user shard, a's apollo shard and a's legacy room copy;
    # b holds it too. A direct-room forget removes a's four copies and leaves b's alone.
    text = "Moved the standup to 9:30"
    for scope in ("bot", "user", "project", "room"):
        for bot in ("a", "b"):
            write_facts(memory_root, f"{shard_dir(scope, bot)}/profile.md", text)
    before = synced(memory_root)
    answer = BotClient(token=tokens["a"]).post("/facts/forget", {"text": text.upper()})
    assert answer.status == 200
    assert answer.body["forgotten"] == 4
    # b's copies in the shared scopes still reach a's prompt: the answer says where.
    assert {(c["scope"], c["bot"]) for c in answer.body["remaining"]} == {
        ("user", "b"), ("project", "b"), ("room", "b"),
    }  # fmt: skip
    after = tree(memory_root)
    assert {rel.rsplit("/", 1)[0] for rel in changed(before, after)} == {
        shard_dir(scope, "a") for scope in ("bot", "user", "project", "room")
    }


def _fact_id(text: str) -> str:
    from memstore.facts.markdown import fact_identity

    return fact_identity(text)


# --- calls a bot can't forge: every operation × every refusal -----------------------------------

OPERATIONS = {
    "remember": ("POST", "/facts", {"text": "Likes green tea"}),
    "list": ("GET", "/facts", None),
    "forget": ("POST", "/facts/forget", {"text": "The team mascot is a aardvark"}),
    "edit": ("PATCH", f"/facts/{_fact_id('The team mascot is a aardvark')}", {"text": "x"}),
    "delete": ("DELETE", f"/facts/{_fact_id('The team mascot is a aardvark')}", None),
    "recall": ("GET", "/recall", None),
    "prompt": ("GET", "/prompt", None),
    "changes": ("POST", "/prompt/changes", {"previous": ""}),
    "exchange": (
        "POST",
        "/exchanges",
        {
            "message": "Where is the offsite?",
            "reply": "Lisbon.",
            "message_id": "m1",
            "reply_id": "m2",
        },
    ),
}
# (room id, kind, person) -> (status, code). Room dm-alice was first named as direct with alice,
# and team as a group room, before each case.
REFUSALS = {
    "unknown person": (("dm-zed", "direct", "zed"), 403, "person_unknown"),
    "unknown person, group room": (("team", "group", "zed"), 403, "person_unknown"),
    "person not linked": (("dm-carol", "direct", "carol"), 403, "person_not_linked"),
    "unlinked, other case": (("dm-carol", "direct", "CAROL"), 403, "person_not_linked"),
    "direct room, other person": (("dm-alice", "direct", "dave"), 409, "room_conflict"),
    "direct room called group": (("dm-alice", "group", ""), 409, "room_conflict"),
    "group room called direct": (("team", "direct", "alice"), 409, "room_conflict"),
    "group room called routine": (("team", "routine", ""), 409, "room_conflict"),
}


@pytest.fixture
def registry(tokens, workspace):
    person_add(name="carol")
    person_link(person="carol", bot="b")
    person_add(name="Dave")
    person_link(person="dave", bot="a")
    for room, kind in (("dm-alice", "direct"), ("team", "group")):
        first = BotClient(token=tokens["b"], room_id=room, room_kind=kind, person="alice")
        assert first.get("/facts").status == 200
    Bot.objects.update(in_groups=False)
    return synced_state()


def synced_state() -> dict:
    return {
        "people": sorted(Person.objects.values_list("name", flat=True)),
        "rooms": sorted(RoomBinding.objects.values_list("room_id", "kind", "person")),
    }


def call(token: str, operation: str, room: str, kind: str, person: str):
    method, path, body = OPERATIONS[operation]
    client = BotClient(token=token, room_id=room, room_kind=kind, person=person)
    query = {"query": "mascot"} if operation == "recall" else {}
    return client.call(method, path, body, **query)


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("refusal", REFUSALS)
def test_a_forged_call_is_refused_and_changes_nothing(
    memory_root, tokens, workspace, registry, operation, refusal
):
    (room, kind, person), status, code = REFUSALS[refusal]
    answer = call(tokens["a"], operation, room, kind, person)
    assert (answer.status, answer.body["code"]) == (status, code), answer.body
    assert tree(memory_root) == workspace  # no folder for zed, no write anywhere
    assert synced_state() == registry  # nobody registered, no room bound or re-bound
    assert not Bot.objects.get(slug="a").in_groups
    [failure] = failures_recent(root=memory_root, limit=1)  # recorded like every refusal
    assert (failure.bot, failure.op, failure.code) == ("a", "call", code)


@pytest.mark.parametrize("spelling", ["alice", "Alice", "ALICE"])
def test_a_person_is_one_person_whatever_the_case(memory_root, tokens, workspace, spelling):
    client = BotClient(token=tokens["a"], room_id="dm-alice", person=spelling)
    answer = client.post("/facts", {"text": "Prefers tea", "scope": "user"})
    assert answer.status == 201, answer.body
    assert answer.body["scope_name"] == "alice"
    assert answer.body["file"].startswith("users/alice/memory/by-agent/a/")
    assert sorted(p.name for p in (memory_root / "users").iterdir()) == ["alice"]
    # The room is bound to the canonical person, so another spelling is the same room.
    again = BotClient(token=tokens["a"], room_id="dm-alice", person="aLiCe").get("/facts")
    assert again.status == 200


def test_the_first_call_binds_the_room_and_a_reset_frees_it(memory_root, tokens, workspace):
    from memstore.rooms.tickets import room_reset

    person_add(name="dave")
    person_link(person="dave", bot="a")
    direct = BotClient(token=tokens["a"], room_id="dm-1", person="alice")
    assert direct.get("/facts").status == 200
    dave = BotClient(token=tokens["a"], room_id="dm-1", person="dave")
    assert dave.get("/facts").body["code"] == "room_conflict"
    # Another bot naming the room gets the same answer: bindings are workspace-wide.
    assert (
        BotClient(token=tokens["b"], room_id="dm-1", room_kind="group").get("/facts").status == 409
    )
    assert room_reset(room_id="dm-1")
    assert dave.get("/facts").status == 200
    assert direct.get("/facts").status == 409


def test_legacy_room_memory_is_read_only_by_bots_holding_a_shard(memory_root, tokens, workspace):
    from memstore.registry.bots import bot_create
    from memstore.registry.tokens import token_create

    bot_create(slug="c")
    c = BotClient(token=token_create(bot="c").token, room_kind="group", person="")
    for answer in (c.get("/facts", limit=200), c.get("/recall", query=WORD["own", "room"])):
        assert answer.status == 200
        assert text_of("own", "room") not in {item["text"] for item in answer.body["items"]}
    refused = c.get("/facts", scope="room")
    assert (refused.status, refused.body["code"]) == (403, "forbidden")
    # a holds a shard in r1: it reads the room's merged legacy memory, b's copy included.
    a = BotClient(token=tokens["a"], room_kind="group", person="", projects="apollo")
    assert text_of("other", "room") in {
        i["text"] for i in a.get("/facts", scope="room").body["items"]
    }


def test_only_an_answered_group_call_marks_the_bot_in_groups(memory_root, tokens, workspace):
    group = BotClient(token=tokens["a"], room_id="team", room_kind="group", person="")
    assert group.post("/facts", {"text": "Alice likes jazz", "scope": "user"}).status == 403
    assert group.get("/facts", scope="project", project="zeus").status == 403
    assert not Bot.objects.get(slug="a").in_groups
    assert group.get("/facts").status == 200
    assert Bot.objects.get(slug="a").in_groups
