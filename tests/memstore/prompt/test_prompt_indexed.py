"""The prompt's blocks read straight from the index give exactly the section the sort of the
whole scope gave: for shared scopes with several shards, copies of a fact in several files and
shards, pinned facts and every tier, hidden, private and searchable lines, expired and future
`until` days, explicit weights and importance, facts the usage nudge lifts or lowers, the
workspace's weight order, in a direct room and a group room, team-wide or not; and a scope
larger than the in-process state's limit gets its full prompt on the first request."""

import contextlib
import itertools
import random
from datetime import date, timedelta

import pytest
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bench.prompt_size import sorted_load as _sorted_load
from memstore.errors import MemstoreError
from memstore.facts.paths import Scope, memory_root
from memstore.index import index_rebuild, index_sync
from memstore.models import Bot, Fact, FactUsage, ScopeCount
from memstore.prompt import cache, section
from memstore.prompt.cache import prompt_cache_clear
from memstore.prompt.compose import BlockInput
from memstore.prompt.indexed import block_read
from memstore.prompt.section import prompt_build
from memstore.rooms.access import WORKSPACE, Context, Room
from memstore.store.services import fact_edit, fact_forget, fact_remember

pytestmark = pytest.mark.django_db


def _same(a: BlockInput, b: BlockInput) -> None:
    def key(f):
        return (f.fact_id, f.shard_bot, f.file, f.rank)

    assert sorted(map(key, a.facts)) == sorted(map(key, b.facts))
    assert a.on_disk == b.on_disk
    assert a.flagged == b.flagged


BUDGETS = {
    "server": {"profile": (2, 4000), "recent": (3, 4000)},
    "user": {"profile": (3, 4000), "recent": (2, 4000)},
    "project": {"profile": (1, 4000), "recent": (2, 4000)},
    "bot": {"profile": (2, 4000), "recent": (4, 4000)},
}
TODAY = date.today()
_names = itertools.count()


def _line(rng: random.Random, i: int) -> str:
    day = TODAY - timedelta(days=rng.choice([0, 0, 1, 3, 40, 400]))
    tag = rng.choice(["", "", "", "[note] ", "[episode] "])
    meta = {}
    if rng.random() < 0.3:
        meta["visibility"] = rng.choice(["private", "hidden", "searchable"])
    if rng.random() < 0.2:
        meta["until"] = str(TODAY + timedelta(days=rng.choice([-30, -1, 0, 5])))
    if rng.random() < 0.15:
        meta["weight"] = rng.choice(["2", "0.25", "3"])
    if rng.random() < 0.1:
        meta["importance"] = rng.choice(["0.9", "0.1"])
    text = f"Fact {i} about the offsite" if rng.random() > 0.05 else f"api_key=sk-{i:032d}"
    note = f" <!-- {' '.join(f'{k}={v}' for k, v in meta.items())} -->" if meta else ""
    return f"- ({day}) {tag}{text}{note}"


def _seed(rng: random.Random, scope: Scope, bots: list[str], facts: int) -> None:
    """Files of a scope in these bots' shards; about a third of the identities appear in more
    than one file or shard, with other dates and visibilities."""
    pool = list(range(facts))
    for bot in bots:
        folder = memory_root() / scope.shard(bot).rel
        (folder / "log").mkdir(parents=True, exist_ok=True)
        files = {
            folder / "profile.md": "# Profile\n\n",
            folder / "log" / f"{TODAY:%Y-%m}.md": "# Log\n\n",
            folder / "log" / "2024-01.md": "# Log\n\n",
        }
        for path, head in files.items():
            chosen = rng.sample(pool, rng.randint(0, min(len(pool), facts // 2)))
            path.write_text(head + "".join(_line(rng, i) + "\n" for i in chosen))


def _usage(rng: random.Random, scopes: list[Scope]) -> None:
    now = timezone.now()
    for scope in scopes:
        for fact in Fact.objects.filter(scope_key=str(scope)).order_by("id")[:40]:
            if rng.random() < 0.3:
                FactUsage.objects.get_or_create(
                    scope_key=str(scope),
                    fact_id=fact.fact_id,
                    defaults={
                        "recalled": rng.choice([0, 1, 5, 50]),
                        "last_used": now - timedelta(days=rng.choice([0, 10, 200])),
                    },
                )


@settings(
    max_examples=25,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a seed is its own small example
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 10**6), facts=st.sampled_from([6, 20, 60]))
def test_the_read_from_the_index_is_the_sorted_read(memory_root, settings, seed, facts):
    settings.PROMPT_BUDGETS = BUDGETS
    rng = random.Random(seed)
    n = next(_names)
    bot, person, project = f"bot{n}", f"person{n}", f"proj{n}"
    Bot.objects.create(slug=bot, in_groups=rng.random() < 0.5)
    scopes = {
        "server": WORKSPACE,
        "user": Scope("user", person),
        "project": Scope("project", project),
        "bot": Scope("bot", bot),
    }
    shards = {"server": ["app"], "user": [bot, "ben", "cy"], "project": [bot, "ben"]}
    for kind, scope in scopes.items():
        _seed(rng, scope, shards.get(kind, [bot]), facts)
    index_sync(scopes=list(scopes.values()))
    _usage(rng, list(scopes.values()))
    budgets = section.prompt_budgets()
    for kind, scope in scopes.items():
        for private in (False, True):
            _same(
                block_read(scope, budgets[kind], private),
                _sorted_load(scope, budgets[kind], private),
            )
    contexts = [
        Context(
            bot=bot,
            room=Room(f"dm-{n}", "direct"),
            person=person,
            projects=(project,),
            joined=(project,),
        ),
        Context(bot=bot, room=Room(f"team-{n}", "group"), projects=(project,), joined=(project,)),
    ]
    for ctx in contexts:
        prompt_cache_clear()
        indexed = prompt_build(ctx=ctx).text
        prompt_cache_clear()
        original = section._load
        section._load = _sorted_load
        try:
            assert prompt_build(ctx=ctx).text == indexed
        finally:
            section._load = original


def test_a_scope_past_the_state_limit_gets_its_whole_prompt_at_once(memory_root, monkeypatch):
    monkeypatch.setattr(cache, "STATE_MAX_FACTS", 10)
    rng = random.Random(7)
    own = Scope("bot", "ada")
    _seed(rng, own, ["ada"], 60)
    ctx = Context(bot="ada", room=Room("team", "group"))
    prompt_cache_clear()
    first = prompt_build(ctx=ctx)  # a cold process: no block, no state
    assert first.blocks and first.blocks[0].facts
    assert "more facts on disk" in first.text
    original = section._load
    monkeypatch.setattr(section, "_load", _sorted_load)
    prompt_cache_clear()
    assert prompt_build(ctx=ctx).text == first.text
    monkeypatch.setattr(section, "_load", original)
    # A write past the limit: the block is read again from the index, the new fact in it.
    fact_remember(shard=own.shard("ada"), text="Moved the offsite to Porto", tier="profile")
    after = prompt_build(ctx=ctx).text
    assert "Moved the offsite to Porto" in after
    assert not cache._states  # no state was loaded for it
    monkeypatch.setattr(section, "_load", _sorted_load)
    prompt_cache_clear()
    assert prompt_build(ctx=ctx).text == after


def test_reindex_fills_the_counts_the_writes_keep(memory_root):
    rng = random.Random(3)
    scopes = [Scope("user", "pat"), Scope("bot", "ada")]
    for scope in scopes:
        _seed(rng, scope, ["ada", "ben"] if scope.kind == "user" else ["ada"], 40)
    index_sync(scopes=scopes)
    with contextlib.suppress(MemstoreError):  # unless it was not among the facts seeded
        fact_forget(shards=[scopes[1].shard("ada")], text="Fact 3 about the offsite")
    fact_remember(shard=scopes[0].shard("ben"), text="Fact 4 about the offsite", day=TODAY)
    kept = _counts()
    index_rebuild()
    rebuilt = _counts()
    assert kept == rebuilt and rebuilt


def _counts() -> list[tuple]:
    return sorted(
        ScopeCount.objects.filter(n__gt=0).values_list("scope_key", "profile", "visibility", "n")
    )


def test_an_edit_that_keeps_the_identity_moves_the_fact_between_counts(memory_root):
    """A save that deletes and inserts the same identity in one statement (a new visibility
    for the same text) counts the fact once, under its new visibility."""
    own = Scope("bot", "ada")
    shard = own.shard("ada")
    fact = fact_remember(shard=shard, text="Prefers window seats", day=TODAY)
    fact_remember(shard=shard, text="Flies on Tuesdays", day=TODAY)
    fact_edit(
        shard=shard,
        fact_id=fact.fact_id,
        text="Prefers window seats",
        meta={"visibility": "searchable"},
    )
    fact_edit(shard=shard, fact_id=fact.fact_id, text="Prefers window seats", day=TODAY)
    kept = _counts()
    assert ("bot:ada", False, "searchable", 1) in kept
    with connection.cursor() as cursor:
        cursor.execute("SELECT memstore_scope_counts_fill()")
    assert _counts() == kept
