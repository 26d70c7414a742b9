"""The prompt after a write is brought up to date from what changed, and it is exactly the
prompt a cold load gives: after any sequence of saves, edits, forgets and hand edits (lines
dropped, moved, re-dated, copied into another bot's shard), in a direct room (private facts
shown) and a group room, with budgets small enough that a change moves facts in and out."""

import itertools
import threading
from contextlib import contextmanager
from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.errors import MemstoreError
from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope, memory_root
from memstore.index import index_rebuild
from memstore.models import FactUsage
from memstore.prompt import cache
from memstore.prompt.cache import prompt_cache_clear
from memstore.prompt.section import prompt_build
from memstore.rooms.access import Context, Room
from memstore.store.services import fact_edit, fact_forget, fact_remember

pytestmark = pytest.mark.django_db

BUDGETS = {
    "user": {"profile": (2, 2000), "recent": (3, 2000)},
    "bot": {"profile": (1, 2000), "recent": (2, 2000)},
}
START = date(2026, 3, 1)
VISIBILITY = ("context", "context", "context", "private", "hidden", "searchable")
_names = itertools.count()


@contextmanager
def _set_aside():
    """Build with an empty cache, then put this process's cache back as it was."""
    kept = dict(cache._cache), dict(cache._states), dict(cache._seen)
    prompt_cache_clear()
    try:
        yield
    finally:
        prompt_cache_clear()
        cache._cache.update(kept[0])
        cache._states.update(kept[1])
        cache._seen.update(kept[2])


def _prompts(contexts: list[Context]) -> list[str]:
    return [prompt_build(ctx=ctx).text for ctx in contexts]


def _cold(contexts: list[Context]) -> list[str]:
    with _set_aside():
        return _prompts(contexts)


def _line(i: int, day: int, visibility: str = "context") -> str:
    meta = f" <!-- visibility={visibility} -->" if visibility != "context" else ""
    return f"- ({START + timedelta(days=day)}) Fact {i} about the offsite{meta}"


def _seed(person: str, bot: str) -> list[Scope]:
    root = memory_root()
    user, own = Scope("user", person), Scope("bot", bot)
    for shard, offset in ((user.shard(bot), 0), (user.shard("ben"), 40), (own.shard(bot), 80)):
        folder = root / shard.rel
        (folder / "log").mkdir(parents=True)
        lines = [_line(offset + i, i % 4, VISIBILITY[i % 6]) for i in range(14)]
        (folder / "profile.md").write_text("# Profile\n\n" + "\n".join(lines[:6]) + "\n")
        (folder / "log" / "2026-03.md").write_text("# Log\n\n" + "\n".join(lines[6:]) + "\n")
    return [user, own]


def _files(scope: Scope, bot: str) -> list:
    root = memory_root()
    bots = [bot, "ben"] if scope.kind == "user" else [bot]
    return sorted(
        path for b in bots for path in (root / scope.shard(b).rel).rglob("*.md") if path.is_file()
    )


def _apply(op: tuple, scopes: list[Scope], bot: str) -> None:
    kind, which, *args = op
    scope = scopes[which]
    shards = [scope.shard(bot)] + ([scope.shard("ben")] if scope.kind == "user" else [])
    try:
        if kind == "remember":
            i, day, tier, visibility, other = args
            meta = {"visibility": visibility} if visibility != "context" else None
            fact_remember(
                shard=shards[other % len(shards)],
                text=f"Fact {i} about the offsite",
                tier=tier,
                day=START + timedelta(days=day),
                meta=meta,
            )
        elif kind == "forget":
            fact_forget(shards=shards, text=f"Fact {args[0]} about the offsite")
        elif kind == "edit":
            i, j, day = args
            for shard in shards:
                try:
                    fact_edit(
                        shard=shard,
                        fact_id=fact_identity(f"Fact {i} about the offsite"),
                        text=f"Fact {j} about the offsite",
                        day=START + timedelta(days=day),
                    )
                    break
                except MemstoreError:
                    continue
        else:  # a hand edit of one file
            pick, how, i, day = args
            files = _files(scope, bot)
            if not files:
                return
            path = files[pick % len(files)]
            lines = path.read_text().splitlines()
            facts = [n for n, line in enumerate(lines) if line.startswith("- (")]
            if how == "drop" and facts:
                del lines[facts[i % len(facts)]]
            elif how == "swap" and len(facts) > 1:
                a, b = facts[i % len(facts)], facts[(i + 1) % len(facts)]
                lines[a], lines[b] = lines[b], lines[a]
            elif how == "redate" and facts:
                n = facts[i % len(facts)]
                lines[n] = f"- ({START + timedelta(days=day)})" + lines[n].split(")", 1)[1]
            else:  # a line added, possibly a copy of a fact another shard holds
                lines.insert(min(2, len(lines)), _line(i, day))
            path.write_text("\n".join(lines) + "\n")
    except MemstoreError:
        pass  # a forget or edit of a fact that is not there: nothing changed


_fact = st.integers(0, 120)
_day = st.integers(0, 6)
_ops = st.one_of(
    st.tuples(
        st.just("remember"),
        st.integers(0, 1),
        _fact,
        _day,
        st.sampled_from(["log", "profile"]),
        st.sampled_from(VISIBILITY),
        st.integers(0, 1),
    ),
    st.tuples(st.just("forget"), st.integers(0, 1), _fact),
    st.tuples(st.just("edit"), st.integers(0, 1), _fact, _fact, _day),
    st.tuples(
        st.just("hand"),
        st.integers(0, 1),
        st.integers(0, 5),
        st.sampled_from(["drop", "swap", "redate", "add"]),
        _fact,
        _day,
    ),
)


def _changes_keep_the_cold_prompt(ops, settings) -> list:
    """A fresh bot and person, prompted in a direct and a group room: after loading and after
    each change, the section is the one a cold build gives; the scopes it wrote."""
    settings.PROMPT_BUDGETS = BUDGETS
    n = next(_names)
    bot, person = f"bot{n}", f"person{n}"
    scopes = _seed(person, bot)
    contexts = [
        Context(bot=bot, room=Room(f"dm-{n}", "direct"), person=person),
        Context(bot=bot, room=Room(f"team-{n}", "group")),
    ]
    assert _prompts(contexts) == _cold(contexts)  # loaded once, the SQL way
    for op in ops:
        _apply(op, scopes, bot)
        assert _prompts(contexts) == _cold(contexts), op
    return scopes


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(_ops, min_size=1, max_size=10))
def test_the_updated_prompt_is_the_cold_prompt_after_any_changes(memory_root, ops, settings):
    _changes_keep_the_cold_prompt(ops, settings)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(_ops, min_size=1, max_size=10))
def test_a_large_scope_read_from_the_index_after_changes_is_the_cold_prompt(
    memory_root, ops, settings, monkeypatch
):
    # Past STATE_MAX_FACTS a changed scope is read again from the index (`block_read`), the
    # way a 100,000-fact scope is after every write: the same text a cold build gives.
    monkeypatch.setattr(cache, "STATE_MAX_FACTS", 0)
    scopes = _changes_keep_the_cold_prompt(ops, settings)
    held = {key[1] for key in cache._states}
    assert not held & {str(scope) for scope in scopes}  # every change was read from the index


def _statements(ctx: Context) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        prompt_build(ctx=ctx)
    return [q["sql"] for q in queries]


def test_a_save_updates_the_block_without_loading_the_scope(memory_root, settings):
    settings.PROMPT_BUDGETS = BUDGETS
    scopes = _seed("alice", "ada")
    ctx = Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")
    prompt_cache_clear()
    prompt_build(ctx=ctx)
    fact_remember(shard=scopes[1].shard("ada"), text="Fact 500 about the offsite", day=START)
    prompt_build(ctx=ctx)  # the first change of a scope seen before: its state is loaded
    fact_remember(shard=scopes[1].shard("ada"), text="Books the venue", day=START + timedelta(9))
    sql = _statements(ctx)
    assert sum("prompt state: delta" in s for s in sql) == 1
    assert not any("prompt state: load" in s or "DISTINCT ON (f.fact_id)" in s for s in sql)
    assert "Books the venue" in prompt_build(ctx=ctx).text
    fact_forget(shards=[scopes[1].shard("ada")], text="Books the venue")
    assert "Books the venue" not in prompt_build(ctx=ctx).text
    assert prompt_build(ctx=ctx).text == _cold([ctx])[0]


def test_a_rebuild_loads_the_whole_scope_again(memory_root, settings):
    settings.PROMPT_BUDGETS = BUDGETS
    scopes = _seed("alice", "ada")
    ctx = Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")
    prompt_cache_clear()
    prompt_build(ctx=ctx)
    fact_remember(shard=scopes[1].shard("ada"), text="Fact 500 about the offsite", day=START)
    prompt_build(ctx=ctx)
    index_rebuild()  # every file row gets a new id: nothing of the state can be trusted
    sql = _statements(ctx)
    assert any("prompt state: load" in s for s in sql)
    assert prompt_build(ctx=ctx).text == _cold([ctx])[0]


@pytest.mark.parametrize("field", ["top", "top_file"])
def test_what_the_state_cannot_be_sure_of_loads_it_whole(memory_root, settings, field):
    # A row committed out of id order (older than the newest held, never seen), or a version
    # whose newest file went backwards: the state is loaded again, not patched.
    settings.PROMPT_BUDGETS = BUDGETS
    scopes = _seed("alice", "ada")
    ctx = Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")
    prompt_cache_clear()
    prompt_build(ctx=ctx)
    fact_remember(shard=scopes[1].shard("ada"), text="Fact 500 about the offsite", day=START)
    prompt_build(ctx=ctx)
    [state] = [s for s in cache._states.values() if s.scope == scopes[1]]
    setattr(state, field, getattr(state, field) + 10**6)
    fact_remember(shard=scopes[1].shard("ada"), text="Books the venue", day=START + timedelta(9))
    sql = _statements(ctx)
    assert any("prompt state: load" in s for s in sql)
    text = prompt_build(ctx=ctx).text
    assert "Books the venue" in text and text == _cold([ctx])[0]


def test_a_new_row_takes_the_usage_nudge_of_its_fact(memory_root, settings):
    # A fact recalled often, forgotten and saved again: its new row ranks with the nudge, as a
    # cold load ranks it (and an old date alone would leave it out of the small budget).
    settings.PROMPT_BUDGETS = BUDGETS
    scopes = _seed("alice", "ada")
    ctx = Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")
    shard = scopes[1].shard("ada")
    prompt_cache_clear()
    prompt_build(ctx=ctx)
    fact_remember(shard=shard, text="Fact 500 about the offsite", day=START)
    prompt_build(ctx=ctx)  # the scope's state is loaded
    text = "Fact 501 about the offsite"
    FactUsage.objects.create(
        scope_key=str(scopes[1]), fact_id=fact_identity(text), recalled=64, last_used=timezone.now()
    )
    fact_remember(shard=shard, text=text, day=START)
    sql = _statements(ctx)
    assert sum("prompt state: delta" in s for s in sql) == 1
    built = prompt_build(ctx=ctx).text
    assert text in built and built == _cold([ctx])[0]


def test_the_prompt_after_a_save_reads_the_change_in_its_one_statement(memory_root, settings):
    # The saved file's stat moved, so the state's delta rides in the statement every prompt
    # runs (flag, rule, versions): no statement more than a warm prompt, and the same prompt.
    settings.PROMPT_BUDGETS = BUDGETS
    scopes = _seed("alice", "ada")
    ctx = Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")
    shard = scopes[1].shard("ada")
    prompt_cache_clear()
    prompt_build(ctx=ctx)
    fact_remember(shard=shard, text="Fact 500 about the offsite", day=START)
    prompt_build(ctx=ctx)  # the scope's state is loaded
    warm = _statements(ctx)
    for text in ("Books the venue", "Fact 3 about the offsite"):
        fact_remember(shard=shard, text=text, day=START + timedelta(9))
        sql = _statements(ctx)
        assert len(sql) == len(warm)
        (read,) = [s for s in sql if "prompt state: delta" in s]
        assert "json_build_array(scope_key, n, top" in read
        built = prompt_build(ctx=ctx).text
        assert text in built and built == _cold([ctx])[0]
    fact_forget(shards=[shard], text="Books the venue")
    assert len(sql := _statements(ctx)) == len(warm)
    assert sum("prompt state: delta" in s for s in sql) == 1
    assert prompt_build(ctx=ctx).text == _cold([ctx])[0]


@pytest.mark.django_db(transaction=True)
def test_prompts_on_threads_while_a_writer_saves_stay_true(memory_root, settings):
    # Prompts on three threads share the process's states (each takes one out while it brings
    # it up to date, and a folded delta is used only by a state still where it was read from).
    settings.PROMPT_BUDGETS = BUDGETS
    scopes = _seed("alice", "ada")
    ctx = Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")
    shard = scopes[1].shard("ada")
    prompt_cache_clear()
    prompt_build(ctx=ctx)
    fact_remember(shard=shard, text="Fact 500 about the offsite", day=START)
    prompt_build(ctx=ctx)  # the scope's state is loaded
    errors: list[BaseException] = []
    stop = threading.Event()

    def prompts() -> None:
        try:
            while not stop.is_set():
                prompt_build(ctx=ctx)
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=prompts) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        for i in range(12):
            fact_remember(shard=shard, text=f"Books venue {i}", day=START + timedelta(5 + i % 4))
            if i % 3 == 2:
                fact_forget(shards=[shard], text=f"Books venue {i - 1}")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []
    built = prompt_build(ctx=ctx).text
    assert "Books venue 11" in built and "Books venue 10" not in built
    assert built == _cold([ctx])[0]


def test_a_budgeted_prompt_stats_each_file_once(memory_root, settings, monkeypatch):
    # The sync's folded check stats the scopes' files; the state's check for a changed file
    # uses those stats instead of a second stat each, and still sees a save.
    from memstore.prompt import incremental
    from memstore.prompt.answer import prompt_answer

    settings.PROMPT_BUDGETS = BUDGETS
    scopes = _seed("alice", "ada")
    ctx = Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")
    shard = scopes[1].shard("ada")
    prompt_cache_clear()
    prompt_answer(ctx=ctx)
    fact_remember(shard=shard, text="Fact 500 about the offsite", day=START)
    prompt_answer(ctx=ctx)  # the scope's state is loaded
    statted = []
    real_stat = incremental.os.stat

    def counted_stat(path, *args, **kwargs):
        statted.append(str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(incremental.os, "stat", counted_stat)
    fact_remember(shard=shard, text="Books the venue", day=START + timedelta(9))
    answer = prompt_answer(ctx=ctx)
    assert answer.memory == "ok" and "Books the venue" in answer.section.text
    assert answer.section.text == _cold([ctx])[0]
    monkeypatch.undo()
    # (the sync's own check stats folders, and the names within them; a second stat of a
    # file would be by its full path)
    full = [path for path in statted if path.startswith(str(memory_root)) and path.endswith(".md")]
    assert full == []
