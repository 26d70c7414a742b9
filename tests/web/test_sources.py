"""Memory sources: a bot's prompt, recall and report_exchange (through the API) leave, under the
exchange in the console, three separate lists (retrieved, injected, cited), each fact with
edit and forget; a fact says which replies it was behind; only people who may see the room
see them; an erase takes the fact out of every list."""

import re
from html import unescape

import pytest
from django.urls import reverse

from memstore.facts.markdown import fact_identity
from memstore.models import Exchange, ServedPrompt
from memstore.registry.tokens import token_create
from tests.helpers import BotClient, remaining_kinds

OFFSITE = "Plans offsites and budgets for the Lisbon team"
ROOFTOP = "Booked the rooftop venue for the offsite"
ANN_WANTS = "Ann wants reports to lead with decisions"
NEVER_SAVED = "Ann's cat is called Miso"
REPLY = {"message": "Where is the offsite?", "reply": "On the rooftop.", "message_id": "m-1"}


@pytest.fixture
def ava(ava_acts_for_ann, workspace) -> BotClient:
    """ava through the API, in a direct room with ann."""
    token = token_create(bot="ava", name="tests").token
    return BotClient(token=token, room_id="dm-ann", person="ann")


def listed(html: str) -> dict[str, list[str]]:
    """The facts each of the three lists shows: their texts, or "gone <id>" for a fact no
    longer in memory."""
    found = {}
    for key in ("retrieved", "injected", "cited"):
        part = re.search(rf'<h4 id="sources-{key}">(.*?)(?=<h4 |</section>)', html, re.S)
        assert part, f"no {key} list"
        texts = [unescape(t) for t in re.findall(r'<p class="fact-text">(.*?)</p>', part[1], re.S)]
        gone = re.findall(r"No longer in memory <code>(\w+)</code>", part[1])
        found[key] = sorted(texts) + [f"gone {g}" for g in gone]
    return found


def exchange_url(exchange_id: int) -> str:
    return reverse("web:exchange", args=["ava"]) + f"?id={exchange_id}"


def reported(ava: BotClient, **extra) -> dict:
    section = ava.get("/prompt").body
    found = ava.get("/recall", query="rooftop venue").body
    assert [f["text"] for f in found["items"]] == [ROOFTOP]
    answer = ava.post(
        "/exchanges",
        {
            **REPLY,
            "reply_id": "r-1",
            "digest": section["digest"],
            "recalled": [OFFSITE, NEVER_SAVED],
        }
        | extra,
    )
    assert answer.status == 202, answer.body
    return {"section": section, "receipt": answer.body}


def test_a_persons_memory_sources_list_what_was_retrieved_injected_and_cited(ava, ann):
    done = reported(ava)
    # The console shows a fact's text without its tier tag ("[note] ...").
    injected = sorted(
        re.sub(r"^\[\w+\] ", "", f["text"]) for b in done["section"]["blocks"] for f in b["facts"]
    )
    assert {OFFSITE, ROOFTOP, ANN_WANTS} <= set(injected)
    assert done["receipt"]["sources"] == {
        "retrieved": 1,
        "injected": len(injected),
        "cited": 2,
        "digest": done["section"]["digest"],
        "note": "",
    }
    page = ann.get(exchange_url(int(done["receipt"]["id"])))
    assert page.status_code == 200
    html = page.content.decode()
    assert listed(html) == {
        "retrieved": [ROOFTOP],
        "injected": injected,
        "cited": [OFFSITE, f"gone {fact_identity(NEVER_SAVED)}"],
    }
    sources = html[html.index("Memory sources") :]
    assert sources.count(">Edit</a>") == len(injected) + 2  # every fact still in memory
    assert sources.count(">Delete</button>") == len(injected) + 2


def test_without_a_digest_the_last_section_served_counts_and_an_unknown_one_is_said(ava):
    ava.get("/prompt")
    plain = ava.post("/exchanges", {**REPLY, "reply_id": "r-2"}).body["sources"]
    assert plain["injected"] > 0 and plain["digest"] == ServedPrompt.objects.get().digest
    unknown = ava.post("/exchanges", {**REPLY, "reply_id": "r-3", "digest": "0" * 16}).body
    assert unknown["sources"]["injected"] == 0
    assert (
        "No prompt section with digest 0000000000000000 was served to ava"
        in (unknown["sources"]["note"])
    )
    bad = ava.post("/exchanges", {**REPLY, "reply_id": "r-4", "digest": "not-a-digest"})
    assert bad.status == 422 and "digest" in str(bad.body)


def test_a_recall_counts_only_for_the_next_exchange(ava):
    ava.get("/recall", query="rooftop venue")
    first = ava.post("/exchanges", {**REPLY, "reply_id": "r-5"}).body
    second = ava.post("/exchanges", {**REPLY, "message_id": "m-2", "reply_id": "r-6"}).body
    assert (first["sources"]["retrieved"], second["sources"]["retrieved"]) == (1, 0)


def test_a_fact_says_which_replies_it_was_behind(ava, ann):
    receipt = reported(ava)["receipt"]
    url = reverse("web:fact_seen", args=["ava"])
    page = ann.get(url, {"scope": "bot:ava", "id": fact_identity(OFFSITE)}).content.decode()
    assert f'?id={receipt["id"]}">reply <code>r-1</code></a>' in page
    roles = re.findall(r'<span class="badge">(\w+)</span>', page.split("<ul class")[-1])
    assert roles == ["injected", "cited"]
    bot_page = ann.get(reverse("web:bot", args=["ava"])).content.decode()
    assert f"{url}?scope=bot%3Aava&amp;id={fact_identity(OFFSITE)}" in bot_page


def test_another_person_sees_neither_the_exchange_nor_its_trace(ava, client, people, boss):
    receipt = reported(ava)["receipt"]
    staff = boss.get(reverse("web:sources", args=["ava"])).content.decode()
    assert "retrieved 1</span>" in staff and "reply <code>r-1</code>" in staff
    client.force_login(people["sam"])
    assert client.get(exchange_url(int(receipt["id"]))).status_code == 403
    listing = client.get(reverse("web:sources", args=["ava"])).content.decode()
    assert "r-1" not in listing
    seen = client.get(
        reverse("web:fact_seen", args=["ava"]), {"scope": "bot:ava", "id": fact_identity(OFFSITE)}
    ).content.decode()
    assert "r-1" not in seen


def test_an_erase_takes_the_fact_out_of_every_list(ava, ann):
    receipt = reported(ava)["receipt"]
    fact_id = fact_identity(OFFSITE)
    assert "source" in remaining_kinds(fact_id)
    erased = ava.post("/facts/forget", {"id": fact_id, "erase": True})
    assert erased.status == 200, erased.body
    assert "source" not in remaining_kinds(fact_id)
    html = ann.get(exchange_url(int(receipt["id"]))).content.decode()
    lists = listed(html)
    assert OFFSITE not in lists["injected"] and OFFSITE not in lists["cited"]
    assert f"gone {fact_id}" not in lists["cited"]
    assert ROOFTOP in lists["retrieved"]
    assert Exchange.objects.count() == 1
