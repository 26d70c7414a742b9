"""The Sensitive keywords page: staff replace the workspace's list (kept in
workspace/settings/sensitive-keywords.txt), the bots' saves obey it at once, a reset goes back
to the default (settings.SENSITIVE_KEYWORDS); others only read it."""

import pytest
from django.test import Client

from memstore.registry.bots import bot_create
from memstore.registry.tokens import token_create
from memstore.rules.sensitive import KEYWORDS_FILE, sensitive_in
from tests.helpers import BotClient

pytestmark = pytest.mark.django_db
PAGE = "/settings/sensitive-keywords/"
MEDICAL = "Has a medical appointment on Friday morning"


@pytest.fixture
def scout(db, memory_root) -> BotClient:
    bot_create(slug="scout")
    return BotClient(token=token_create(bot="scout").token, room_kind="routine", person="")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_staff_see_the_default_list_until_they_save_their_own(people, memory_root):
    page = signed_in(people["boss"]).get(PAGE).content.decode()
    assert "The default list" in page and "SENSITIVE_KEYWORDS" in page
    assert "medical appointment\nmedical leave" in page  # one keyword a line, ready to edit
    assert not (memory_root / KEYWORDS_FILE).exists()


def test_a_saved_list_replaces_the_default_for_every_save(people, memory_root, scout):
    boss = signed_in(people["boss"])
    answer = boss.post(PAGE, {"action": "save", "words": "Payroll\nhome  address, payroll\n"})
    assert answer.status_code == 302
    assert (memory_root / KEYWORDS_FILE).read_text().splitlines()[-2:] == [
        "payroll",
        "home address",
    ]
    assert "Saved 2 keywords" in boss.get(PAGE).content.decode()
    refused = scout.post("/facts", {"text": "Payroll runs on the 25th"})
    assert (refused.status, refused.body["code"]) == (422, "sensitive_keyword")
    assert scout.post("/facts", {"text": MEDICAL}).status == 201  # no longer on the list

    assert boss.post(PAGE, {"action": "reset"}).status_code == 302
    assert not (memory_root / KEYWORDS_FILE).exists()
    assert "The default list" in boss.get(PAGE).content.decode()
    assert scout.post("/facts", {"text": "Has a medical appointment on Monday"}).status == 422
    assert scout.post("/facts", {"text": "Payroll closes on the 20th"}).status == 201


def test_an_empty_list_turns_the_check_off(people, memory_root, scout):
    signed_in(people["boss"]).post(PAGE, {"action": "save", "words": ""})
    assert scout.post("/facts", {"text": MEDICAL}).status == 201


def test_a_keyword_that_can_match_nothing_is_refused_saying_why(people, memory_root):
    boss = signed_in(people["boss"])
    answer = boss.post(PAGE, {"action": "save", "words": "payroll\n---\n"})
    assert answer.status_code == 422
    assert "---&#x27; holds no letter or digit" in answer.content.decode()
    hashed = boss.post(PAGE, {"action": "save", "words": "C# salaries"})
    assert hashed.status_code == 422 and "starts a comment" in hashed.content.decode()
    long = boss.post(PAGE, {"action": "save", "words": "x" * 81})
    assert long.status_code == 422 and "at most 80 characters" in long.content.decode()
    assert not (memory_root / KEYWORDS_FILE).exists()


def test_others_read_the_list_but_may_not_change_it(people, memory_root):
    ann = signed_in(people["ann"])
    page = ann.get(PAGE).content.decode()
    assert "keywords-form" not in page and "<li>medical appointment</li>" in page
    answer = ann.post(PAGE, {"action": "save", "words": "payroll"})
    assert answer.status_code == 403
    assert not (memory_root / KEYWORDS_FILE).exists()


def test_a_hand_edit_of_the_file_counts(memory_root):
    path = memory_root / KEYWORDS_FILE
    path.parent.mkdir(parents=True)
    path.write_text("# ours\npayroll  # monthly runs\n\nbonus\n")
    assert sensitive_in("Bonus payments land in March")
    assert sensitive_in("Payroll runs on the 25th")
    assert not sensitive_in(MEDICAL)
