"""The views a person expects (issue 24): a pin on memories saved on request, and what was
forgotten in the last 30 days, on About me and on the bot page, with Restore."""

import re

import pytest

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.registry.people import person_add
from memstore.store.services import fact_forget, fact_remember
from tests.helpers import HX, day, plain, write_memory

pytestmark = pytest.mark.django_db


@pytest.fixture
def sam(client, people, workspace):
    person_add(name="sam", username="sam")
    client.force_login(people["sam"])
    return client


def test_a_pin_marks_what_was_saved_on_request_not_what_was_learned(sam, workspace):
    write_memory(
        workspace,
        "users/sam/memory/by-agent/ava/profile.md",
        f"- ({day(20)}) Sam is vegetarian <!-- pin=1 via=tool -->",
        f"- ({day(9)}) Sam lives in Porto <!-- via=learner src=room:dm-sam/msg:4 -->",
        f"- ({day(3)}) Sam runs on Sundays <!-- via=api -->",
    )
    about = sam.get("/me/").content.decode().split('<li class="fact')[1:]
    assert {
        ("vegetarian" in r, "Porto" in r, "Sundays" in r): "on request" in r for r in about
    } == {
        (True, False, False): True,
        (False, True, False): False,
        (False, False, True): True,
    }
    page = sam.get("/bots/ava/?tab=people").content.decode()
    rows = page.split('<li class="fact')[1:]
    assert [("on request" in r) for r in rows if "Sam" in r] == [True, False, True]


def test_forgotten_in_the_last_30_days_lists_what_is_gone_and_restores_it(sam, workspace):
    shard = Scope("user", "sam").shard("ava")
    fact_remember(shard=shard, text="Sam prefers aisle seats", tier="profile", by="ava")
    fact_forget(shards=[shard], text="Sam prefers aisle seats", by="sam", via="console")
    about = plain(sam.get("/me/"))
    assert "Forgotten in the last 30 days (1)" in about
    assert "Sam prefers aisle seats" in about and "by sam via console" in about
    restored = sam.post(
        "/people/sam/undo/",
        {"file": "users/sam/memory/by-agent/ava/profile.md", "id": _id("Sam prefers aisle seats")},
        **HX,
    )
    assert restored.status_code == 200
    assert (
        "Sam prefers aisle seats"
        in (workspace / "users/sam/memory/by-agent/ava/profile.md").read_text()
    )
    assert "Forgotten in the last" not in plain(sam.get("/me/"))


def test_the_bot_page_lists_its_own_forgotten_facts_for_anyone_who_reads_it(sam, workspace, people):
    fact_forget(
        shards=[Scope("bot", "ava").shard("ava")],
        text="Plans offsites and budgets for the Lisbon team",
        by="boss",
        via="console",
    )
    page = sam.get("/bots/ava/")
    text = plain(page)
    assert "Forgotten in the last 30 days (1)" in text
    assert "Plans offsites and budgets for the Lisbon team" in text
    assert ">Restore</button>" not in page.content.decode()  # sam does not edit ava


def _id(text: str) -> str:
    return fact_identity(text)


def test_about_me_groups_by_bot_conversation_or_type(sam, workspace):
    write_memory(
        workspace,
        "users/sam/memory/by-agent/ben/profile.md",
        f"- ({day(5)}) Sam runs on Sundays <!-- type=preference src=room:dm-sam/msg:3 -->",
        f"- ({day(4)}) Sam plays chess <!-- src=room:team/msg:9 -->",
    )

    def groups(group: str) -> list[tuple[str, list[str]]]:
        html = sam.get(f"/me/?group={group}", **HX).content.decode()
        found = []
        for part in html.split('<section class="fact-group"')[1:]:
            label = part.split("<h3>", 1)[1].split(" <span", 1)[0]
            found.append((label, texts_of(part)))
        return found

    assert groups("bot") == [
        ("ben", ["Sam plays chess", "Sam runs on Sundays"]),
        ("ava", ["Sam is vegetarian"]),
    ]
    assert groups("room") == [
        ("Room team", ["Sam plays chess"]),
        ("Room dm-sam", ["Sam runs on Sundays"]),
        ("No conversation recorded", ["Sam is vegetarian"]),
    ]
    assert groups("type") == [
        ("fact", ["Sam plays chess", "Sam is vegetarian"]),
        ("preference", ["Sam runs on Sundays"]),
    ]
    assert groups("") == [] and groups("nonsense") == []
    assert "Sam plays chess" in plain(sam.get("/me/?group=nonsense"))  # a bad value: no grouping


def texts_of(html: str) -> list[str]:
    return [t.strip() for t in re.findall(r'<p class="fact-text">(.*?)</p>', html, re.S)]


def test_the_bot_page_groups_by_conversation_bot_or_type(client, people, workspace):
    client.force_login(people["boss"])
    write_memory(
        workspace,
        "agents/ben/memory/profile.md",
        f"- ({day(5)}) Ben summarises papers <!-- type=preference src=room:lab/msg:3 -->",
        f"- ({day(4)}) Ben reads on trains <!-- src=room:team/msg:9 -->",
        f"- ({day(3)}) Ben likes tables",
    )

    def groups(group: str) -> list[tuple[str, list[str]]]:
        html = client.get(f"/bots/ben/?group={group}", **HX).content.decode()
        found = []
        for part in html.split('<section class="fact-group"')[1:]:
            label = part.split("<h3>", 1)[1].split(" <span", 1)[0]
            found.append((label, texts_of(part)))
        return found

    assert groups("room") == [
        ("No conversation recorded", ["Ben likes tables"]),
        ("Room team", ["Ben reads on trains"]),
        ("Room lab", ["Ben summarises papers"]),
    ]
    assert groups("type") == [
        ("fact", ["Ben likes tables", "Ben reads on trains"]),
        ("preference", ["Ben summarises papers"]),
    ]
    assert groups("bot") == [
        ("ben", ["Ben likes tables", "Ben reads on trains", "Ben summarises papers"])
    ]
    assert groups("") == []
