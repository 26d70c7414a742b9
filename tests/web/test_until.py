"""Valid until and review by in the console (issue 23 part 3): the edit form sets the dates, an
expired fact stays listed (marked, filterable) but leaves search and the prompt preview, a later
date brings it back, and Health lists facts whose review day has come."""

import re
from datetime import timedelta

import pytest

from memstore.facts.markdown import fact_identity
from memstore.models import Bot
from memstore.registry.people import person_add, person_link
from tests.helpers import HX, TODAY, day, texts, write_memory

pytestmark = pytest.mark.django_db

PROFILE = "agents/ava/memory/profile.md"
PLANS = "Plans offsites and budgets for the Lisbon team"
REF = {"file": PROFILE, "id": fact_identity(PLANS)}
YESTERDAY = (TODAY - timedelta(days=1)).isoformat()
TOMORROW = (TODAY + timedelta(days=1)).isoformat()


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"


def _edit(client, **fields):
    form = {"expected": PLANS, "text": PLANS, "tier": "profile", "day": day(40).isoformat()}
    return client.post("/bots/ava/facts/edit/", REF | form | fields, **HX)


def test_the_edit_form_sets_until_and_the_fact_leaves_search_but_stays_listed(
    ann, workspace, ava_acts_for_ann
):
    form = ann.get("/bots/ava/facts/edit/", REF, **HX).content.decode()
    assert "True until" in form and "Review by" in form
    saved = _edit(ann, until=YESTERDAY, review="")
    assert saved.status_code == 200, saved.content.decode()
    assert f"expired {YESTERDAY}" in saved.content.decode()
    on_disk = (workspace / PROFILE).read_text()
    assert f"{PLANS} <!-- until={YESTERDAY} by=ann via=console -->" in on_disk

    assert PLANS in texts(ann.get("/bots/ava/"))  # still listed, marked
    assert texts(ann.get("/bots/ava/", {"dates": "expired"})) == [PLANS]
    assert PLANS not in texts(ann.get("/bots/ava/", {"dates": "current"}))
    assert PLANS not in texts(ann.get("/search/", {"q": "Lisbon offsites"}))
    assert PLANS not in texts(ann.get("/bots/ava/", {"q": "Lisbon offsites"}))
    preview = ann.get("/bots/ava/prompt/").content.decode()
    assert "Lisbon team" not in preview

    back = _edit(ann, until=TOMORROW)
    assert f"until {TOMORROW}" in back.content.decode()
    assert PLANS in texts(ann.get("/search/", {"q": "Lisbon offsites"}))
    assert "Lisbon team" in ann.get("/bots/ava/prompt/").content.decode()

    cleared = _edit(ann, until="")
    assert "until" not in (workspace / PROFILE).read_text().splitlines()[-2]
    assert cleared.status_code == 200


def test_a_bad_date_in_the_form_is_refused_next_to_its_field(ann, workspace):
    before = (workspace / PROFILE).read_text()
    answer = _edit(ann, until="next friday")
    html = answer.content.decode()
    assert answer.status_code in (200, 422)
    assert re.search(r"True until</label>.*?Enter a valid date", html, re.S)
    assert (workspace / PROFILE).read_text() == before


def test_health_lists_a_fact_whose_review_day_has_come(ann, workspace):
    write_memory(
        workspace,
        "agents/ava/memory/log/2020-03.md",
        f"- ({day(3)}) Office wifi password rotates monthly <!-- review={TODAY.isoformat()} -->",
        f"- ({day(3)}) Parking is on level two <!-- review={TOMORROW} -->",
    )
    html = ann.get("/bots/ava/health/").content.decode()
    assert 'class="finding kind-review"' in html
    assert "Office wifi password rotates monthly" in html
    assert f"to be checked by {TODAY.isoformat()}" in html
    assert "Parking is on level two" not in html
    listed = ann.get("/bots/ava/", {"dates": "review due"})
    assert texts(listed) == ["Office wifi password rotates monthly"]


def test_about_me_marks_an_expired_fact_and_the_reach_page_says_why_it_is_left_out(ann, workspace):
    write_memory(
        workspace,
        "users/ann/memory/by-agent/ava/log/2020-04.md",
        f"- ({day(6)}) Ann is in Porto this week <!-- until={YESTERDAY} -->",
    )
    about = ann.get("/me/").content.decode()
    assert "Ann is in Porto this week" in about and f"expired {YESTERDAY}" in about
    assert "Ann is in Porto" not in "".join(texts(ann.get("/me/", {"q": "Porto"}, **HX)))
    person_add(name="ann", username="ann", exist_ok=True)  # the reach page is per linked bot
    Bot.objects.get_or_create(slug="ava")
    person_link(person="ann", bot="ava")
    reach = ann.get("/people/ann/prompts/").content.decode()
    direct = reach.split('<section class="card reach"')[1]
    assert 'in Porto this week</span> — <span class="why">past its until date' in direct
