"""PROMPT_SHAPE=seed (the seed design's context shape): each block is one category of at most
PROMPT_SHAPE_ENTRIES entries, personal memory newest first (profile and log together),
workspace memory by weight then date, each entry cut to PROMPT_SHAPE_ENTRY_CHARS characters
with the whole fact still found by recall; the rules of the section (hidden facts, paused
people) hold as in the `blocks` shape; a bad setting fails at startup; switching the shape on a
warm cache changes the section at once."""

import os
import random
import subprocess
import sys
from datetime import date, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F

from memstore.facts.paths import Scope, memory_root
from memstore.facts.records import stored_from_row
from memstore.models import Fact
from memstore.prompt.cache import prompt_cache_clear
from memstore.prompt.changes import fact_lines
from memstore.prompt.compose import BlockInput, section_compose
from memstore.prompt.section import prompt_build, prompt_changes, prompt_scopes, prompt_shape
from memstore.prompt.shape import entry_cut
from memstore.recall.search import recall_search
from memstore.registry.people import person_add
from memstore.rooms.access import Context, Room
from memstore.rules.controls import memory_pause
from memstore.store.services import fact_remember
from tests.helpers import REPO, direct, log, profile, write_memory

pytestmark = pytest.mark.django_db

OWN = Context(bot="ada", room=Room("room-1", "routine"))
SHARD = Scope("bot", "ada").shard("ada")


@pytest.fixture
def seed(settings):
    prompt_cache_clear()
    settings.PROMPT_SHAPE = "seed"
    yield settings
    prompt_cache_clear()


def entries(text: str, title: str) -> list[str]:
    """The fact lines and the closing line of the block whose title starts with `title`."""
    block = text.split(f"### {title}", 1)[1].split("\n### ", 1)[0]
    return [line for line in block.splitlines()[1:] if line.startswith("- (") or "on disk" in line]


def test_each_category_holds_at_most_20_entries_the_rest_counted_on_disk(seed, memory_root):
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        *(f"- (2026-11-{d:02}) Log fact {d}" for d in range(1, 26)),
    )
    profile(
        memory_root, "bot", "ada", *(f"- (2026-10-{d:02}) Profile fact {d}" for d in range(1, 6))
    )
    shown = entries(prompt_build(ctx=OWN).text, "Your own memory")
    # The 25 log facts of November are newer than every profile fact: they fill the 20 entries.
    assert shown == [f"- (2026-11-{d:02}) Log fact {d}" for d in range(25, 5, -1)] + [
        "10 more facts on disk, not shown here: search them with recall."
    ]


def test_the_entry_cap_and_length_are_settings(seed, memory_root):
    seed.PROMPT_SHAPE_ENTRIES, seed.PROMPT_SHAPE_ENTRY_CHARS = 2, 20
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        "- (2026-11-01) Old",
        "- (2026-11-02) Likes long walks by the sea",
        "- (2026-11-03) New",
    )
    assert entries(prompt_build(ctx=OWN).text, "Your own memory") == [
        "- (2026-11-03) New",
        "- (2026-11-02) Likes long walks by\u2026",
        "1 more fact on disk, not shown here: search them with recall. 1 entry shortened (\u2026):"
        " recall gives its whole text.",
    ]


def test_a_long_fact_is_cut_at_a_word_and_recall_finds_it_whole(seed, memory_root):
    long = " ".join(["Deploys go through the blue-green pipeline"] * 8)[:350].rstrip()
    assert len(long) > 340
    fact_remember(shard=SHARD, text=long)
    section = prompt_build(ctx=OWN)
    [line, closing] = entries(section.text, "Your own memory")
    text = line.split(") ", 1)[1]
    assert len(text) <= 200 and text.endswith("\u2026")
    assert long.startswith(text[:-1]) and long[len(text) - 1] == " "  # cut before a whole word
    assert "1 entry shortened (\u2026): recall gives its whole text." in closing
    assert section.blocks[-1].facts[0].text == long  # the API's blocks carry the whole fact
    assert [r.text for r in recall_search(ctx=OWN, query="blue-green pipeline").items] == [long]


def test_personal_memory_is_newest_first_profile_and_log_together(seed, memory_root):
    person_add(name="alice")
    profile(
        memory_root, "user", "alice", "- (2026-11-20) Prefers tea", "- (2026-10-01) Lives in Porto"
    )
    log(
        memory_root,
        "user",
        "alice",
        "2026-11",
        "- (2026-11-10) Asked about Lisbon",
        "- (2026-11-25) Booked a flight",
    )
    assert entries(prompt_build(ctx=direct()).text, "About alice") == [
        "- (2026-11-25) Booked a flight",
        "- (2026-11-20) Prefers tea",
        "- (2026-11-10) Asked about Lisbon",
        "- (2026-10-01) Lives in Porto",
        "Nothing more on disk for this block.",
    ]


def test_project_memory_is_by_weight_then_newest(seed, memory_root):
    profile(
        memory_root,
        "project",
        "acme",
        "- (2026-01-05) Old but vital <!-- weight=4 -->",
        "- (2026-11-20) Ships on Fridays",
        "- (2026-06-01) Uses Postgres <!-- weight=4 -->",
    )
    log(
        memory_root,
        "project",
        "acme",
        "2026-11",
        "- (2026-11-28) [note] Demo went fine",
        "- (2026-11-02) [episode] Launched v2",
    )
    ctx = Context(
        bot="ada", room=Room("room-1", "routine"), projects=("acme",), joined=frozenset({"acme"})
    )
    assert entries(prompt_build(ctx=ctx).text, "Project acme") == [
        "- (2026-06-01) Uses Postgres",
        "- (2026-01-05) Old but vital",
        "- (2026-11-02) [episode] Launched v2",
        "- (2026-11-20) Ships on Fridays",
        "- (2026-11-28) [note] Demo went fine",
        "Nothing more on disk for this block.",
    ]


def test_hidden_facts_never_show_nor_count_however_new(seed, memory_root):
    # More hidden lines at the top of the file than a first read takes: it reads deeper.
    hidden = [f"- (2026-11-28) Door code {i} <!-- visibility=hidden -->" for i in range(40)]
    shown = [f"- (2026-11-{d:02}) Fact {d}" for d in range(1, 23)]
    log(memory_root, "bot", "ada", "2026-11", *shown, *hidden)
    lines = entries(prompt_build(ctx=OWN).text, "Your own memory")
    assert lines == [f"- (2026-11-{d:02}) Fact {d}" for d in range(22, 2, -1)] + [
        "2 more facts on disk, not shown here: search them with recall."
    ]


def test_a_paused_person_is_left_out_as_in_the_blocks_shape(seed, memory_root):
    seed.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_user_model().objects.create_user("alice", password="pw-alice-12345")
    person_add(name="alice", username="alice")
    profile(memory_root, "user", "alice", "- (2026-11-20) Prefers tea")
    memory_pause(person="alice", by="alice", via="console")
    text = prompt_build(ctx=direct()).text
    assert "### About alice (memory paused)" in text and "Prefers tea" not in text


def test_a_save_shows_first_on_the_next_prompt(seed, memory_root):
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        *(f"- (2026-11-{d:02}) Fact {d}" for d in range(1, 25)),
    )
    prompt_build(ctx=OWN)
    prompt_build(ctx=OWN)  # warm: the `blocks` shape would keep a state from here on
    saved = fact_remember(shard=SHARD, text="Switched to the night shift")
    lines = entries(prompt_build(ctx=OWN).text, "Your own memory")
    assert lines[0] == f"- ({saved.day.isoformat()}) Switched to the night shift"
    assert lines[-1] == "5 more facts on disk, not shown here: search them with recall."


def test_switching_the_shape_on_a_warm_cache_changes_the_section(settings, memory_root):
    prompt_cache_clear()
    profile(memory_root, "bot", "ada", "- (2026-10-01) Prefers tea")
    log(memory_root, "bot", "ada", "2026-11", "- (2026-11-02) Flies to Lisbon")
    blocks = prompt_build(ctx=OWN).text
    assert prompt_build(ctx=OWN).text == blocks  # warm
    assert entries(blocks, "Your own memory") == [
        "- (2026-10-01) Prefers tea",
        "- (2026-11-02) Flies to Lisbon",
        "Nothing more on disk for this block.",
    ]
    assert "Profile:\n" in blocks and "Recently:\n" in blocks
    settings.PROMPT_SHAPE = "seed"
    seeded = prompt_build(ctx=OWN).text
    assert entries(seeded, "Your own memory") == [
        "- (2026-11-02) Flies to Lisbon",
        "- (2026-10-01) Prefers tea",
        "Nothing more on disk for this block.",
    ]
    assert "Profile:\n" not in seeded
    settings.PROMPT_SHAPE = "blocks"
    assert prompt_build(ctx=OWN).text == blocks
    prompt_cache_clear()


@pytest.mark.parametrize(
    ("text", "chars", "cut"),
    [
        ("short", 200, "short"),
        ("one two three four", 10, "one two\u2026"),
        ("one two three four", 9, "one two\u2026"),
        ("abcdefghijklmnop", 6, "abcde\u2026"),
        ("one, two, three", 11, "one, two\u2026"),
    ],
)
def test_entry_cut(text, chars, cut):
    assert entry_cut(text, chars) == cut
    assert len(entry_cut(text, chars)) <= chars


def _settings_error(**env) -> str:
    code = "from django.conf import settings as s; s.PROMPT_SHAPE"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=os.environ | {"DJANGO_SETTINGS_MODULE": "memoryconsole.settings"} | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    return done.stderr.strip().splitlines()[-1]


def test_a_bad_shape_setting_fails_at_startup_naming_it():
    assert _settings_error(PROMPT_SHAPE="wide") == (
        "django.core.exceptions.ImproperlyConfigured: PROMPT_SHAPE='wide': use one of blocks, seed."
    )
    assert "PROMPT_SHAPE_ENTRIES must be at least 1" in _settings_error(PROMPT_SHAPE_ENTRIES="0")
    assert "PROMPT_SHAPE_ENTRY_CHARS='many' is not a number" in _settings_error(
        PROMPT_SHAPE_ENTRY_CHARS="many"
    )


def test_a_cut_entry_pushed_out_left_the_section_and_a_forgotten_one_was_removed(seed, memory_root):
    seed.PROMPT_SHAPE_ENTRIES = 2
    long = "Standup moves to the big room on the third floor every Monday " * 4
    long = long.strip()
    log(memory_root, "bot", "ada", "2026-11", f"- (2026-11-02) {long}", "- (2026-11-03) Newest")
    before = prompt_build(ctx=OWN).text
    cut_line = next(line for line in fact_lines(before) if line.endswith("\u2026"))
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        f"- (2026-11-02) {long}",
        "- (2026-11-03) Newest",
        "- (2026-11-04) Newer still",
    )
    pushed = prompt_changes(ctx=OWN, previous=before)
    assert (pushed.left, pushed.removed) == ([cut_line], [])
    log(memory_root, "bot", "ada", "2026-11", "- (2026-11-03) Newest")
    gone = prompt_changes(ctx=OWN, previous=before)
    assert (gone.left, gone.removed) == ([], [cut_line])


def _scope_files(rng: random.Random, scope: Scope, bots: list[str], facts: int) -> None:
    """A scope's files in these bots' shards: the same identities in several files and shards
    with other dates and visibilities, many facts of one day, weights, tags and importance."""
    for bot in bots:
        folder = memory_root() / scope.shard(bot).rel
        for name in ("profile.md", "log/2026-11.md", "log/2024-01.md"):
            lines = []
            for i in rng.sample(range(facts), rng.randint(0, facts // 2)):
                day = date(2026, 11, 28) - timedelta(days=rng.choice([0, *range(200)]))
                meta = {}
                if rng.random() < 0.3:
                    meta["visibility"] = rng.choice(["private", "hidden", "searchable"])
                if rng.random() < 0.4:
                    meta["weight"] = rng.choice(["2", "0.25", "8", "64"])
                if rng.random() < 0.1:
                    meta["importance"] = rng.choice(["0.9", "0.1"])
                tag = rng.choice(["", "", "[note] ", "[episode] "])
                note = f" <!-- {' '.join(f'{k}={v}' for k, v in meta.items())} -->" if meta else ""
                lines.append(f"- ({day}) {tag}Fact {i} of the offsite plan{note}")
            write_memory(memory_root(), f"{scope.shard(bot).rel}/{name}", *lines)
        assert folder.exists()


@pytest.mark.parametrize("seed_n", [1, 2, 3, 4])
def test_the_read_from_the_index_is_the_seed_order_of_the_whole_scope(seed, seed_n):
    """Each scope's entries read from the index are those the whole scope, merged and sorted in
    memory, gives: in a direct room (private facts shown) and a group room."""
    seed.PROMPT_SHAPE_ENTRIES = 3
    rng = random.Random(seed_n)
    person_add(name="alice")
    scopes = [Scope("user", "alice"), Scope("project", "acme"), Scope("bot", "ada")]
    for scope, bots in zip(scopes, [["ada", "ben"], ["ada", "ben"], ["ada"]], strict=True):
        _scope_files(rng, scope, bots, 120)
    shape = prompt_shape()
    for room in (Room("dm-alice", "direct"), Room("team", "group")):
        ctx = Context(bot="ada", room=room, person="alice", projects=("acme",), joined=("acme",))
        private = room.kind == "direct"
        built = prompt_build(ctx=ctx).text  # synced first
        whole = [
            BlockInput(
                kind=kind,
                name=scope.name,
                facts=[
                    stored_from_row(row)
                    for row in Fact.objects.filter(scope_key=str(scope)).annotate(
                        file_path=F("file__path")
                    )
                ],
                private=private,
            )
            for kind, scope in prompt_scopes(ctx)
            if kind != "server"
        ]
        expected = section_compose(inputs=whole, bot="ada", shape=shape).text
        assert built == expected


def test_personal_memory_shows_the_newest_however_light(seed, memory_root):
    # 30 weighty facts from June outrank November's notes by rank; recency puts the notes first.
    heavy = [f"- (2026-06-{d % 28 + 1:02}) Heavy fact {d} <!-- weight=64 -->" for d in range(30)]
    notes = [f"- (2026-11-{d:02}) [note] Light note {d}" for d in (20, 21, 22)]
    log(memory_root, "bot", "ada", "2026-06", *heavy)
    log(memory_root, "bot", "ada", "2026-11", *notes)
    seed.PROMPT_SHAPE_ENTRIES = 3
    assert entries(prompt_build(ctx=OWN).text, "Your own memory")[:3] == [
        "- (2026-11-22) [note] Light note 22",
        "- (2026-11-21) [note] Light note 21",
        "- (2026-11-20) [note] Light note 20",
    ]
