"""A person sees their own user memory and nobody else's; staff see all (SPEC §6)."""

import pytest

from memstore.facts.markdown import fact_identity
from tests.helpers import HX, texts

pytestmark = pytest.mark.django_db

SAM = "users/sam/memory/by-agent/ava/profile.md"


def test_person_sees_only_own_user_memory(ann, workspace):
    assert texts(ann.get("/bots/ava/?tab=people", **HX)) == [
        "Ann wants reports to lead with decisions"
    ]
    assert ann.get("/bots/ava/?tab=people&scope=user:sam", **HX).status_code == 403
    for url in ("/", "/bots/ava/?tab=people", "/bots/ava/history/", "/bots/ava/clear/"):
        assert "Sam is vegetarian" not in ann.get(url).content.decode(), url
    assert "about sam" not in ann.get("/bots/ava/history/").content.decode()


def test_person_cannot_change_someone_elses_user_memory(ann, workspace):
    ref = {"file": SAM, "id": fact_identity("Sam is vegetarian")}
    assert ann.get("/bots/ava/facts/edit/", ref).status_code == 403
    edit = ref | {"expected": "Sam is vegetarian", "text": "Sam eats anything"}
    assert ann.post("/bots/ava/facts/edit/", edit).status_code == 403
    assert ann.post("/bots/ava/facts/delete/", ref).status_code == 403
    assert ann.get("/bots/ava/history/?shard=user:sam|ava").status_code == 403
    assert "Sam is vegetarian" in (workspace / SAM).read_text()


def test_staff_see_everyones_user_memory(boss, workspace):
    assert sorted(texts(boss.get("/bots/ava/?tab=people", **HX))) == [
        "Ann wants reports to lead with decisions",
        "Sam is vegetarian",
    ]
    assert texts(boss.get("/bots/ava/?tab=people&scope=user:sam", **HX)) == ["Sam is vegetarian"]


def test_prompt_preview_of_another_persons_direct_room_is_refused(ann, workspace):
    html = ann.get("/bots/ava/prompt/?kind=direct&person=sam").content.decode()
    assert "Only that person (or staff)" in html
