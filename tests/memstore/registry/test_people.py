"""The people registry: one spelling per person, links, the importer, the command, the demo,
and room bindings (the API side is tests/api/test_matrix.py)."""

import pytest
from django.core.management import CommandError

from memstore.errors import InvalidName, PersonNotLinked, PersonUnknown, RoomConflict
from memstore.models import Person, RoomBinding
from memstore.registry.bots import bot_create
from memstore.registry.people import (
    people_import,
    person_add,
    person_bots,
    person_for_bot,
    person_link,
    person_unlink,
)
from memstore.rooms.tickets import Binding, room_bind, room_reset
from tests.helpers import run_command, write_facts

pytestmark = pytest.mark.django_db


def test_a_person_has_one_spelling():
    assert person_add(name="Sam").name == "Sam"
    with pytest.raises(InvalidName, match="'Sam' is already registered"):
        person_add(name="sam")
    assert person_add(name="SAM", exist_ok=True).name == "Sam"
    assert list(Person.objects.values_list("name", flat=True)) == ["Sam"]
    with pytest.raises(InvalidName):
        person_add(name="../etc")


def test_a_bot_acts_only_for_linked_people():
    bot_create(slug="ava")
    person_add(name="Sam")
    with pytest.raises(PersonUnknown):
        person_for_bot(bot="ava", person="zed")
    with pytest.raises(PersonNotLinked, match="people link Sam ava"):
        person_for_bot(bot="ava", person="sam")
    assert person_link(person="sAm", bot="ava") is True
    assert person_link(person="Sam", bot="ava") is False
    assert person_for_bot(bot="ava", person="SAM") == "Sam"
    assert person_bots(person="sam") == ["ava"]
    assert person_unlink(person="sam", bot="ava") is True
    assert person_bots(person="Sam") == []


def test_the_importer_registers_folders_and_accounts_once(memory_root, django_user_model):
    write_facts(memory_root, "users/Sam/memory/by-agent/ava/profile.md", "Likes tea")
    write_facts(memory_root, "users/sam/memory/by-agent/ben/profile.md", "Likes coffee")
    django_user_model.objects.create_user("ann")
    added, skipped = people_import(root=memory_root)
    assert (sorted(added), skipped) == (["Sam", "ann"], ["sam"])
    assert people_import(root=memory_root) == ([], ["sam"])  # idempotent


def test_a_room_is_what_its_first_call_said():
    first = room_bind(room_id="dm-1", kind="direct", person="Sam", bot="ava")
    assert first == Binding(room_id="dm-1", kind="direct", person="Sam", first_bot="ava")
    assert room_bind(room_id="dm-1", kind="direct", person="Sam", bot="ben") == first
    for kind, person in (("direct", "Ann"), ("group", None), ("routine", None)):
        with pytest.raises(RoomConflict):
            room_bind(room_id="dm-1", kind=kind, person=person, bot="ava")
    room_bind(room_id="team", kind="group", person="Sam", bot="ava")  # group rooms keep no person
    assert room_bind(room_id="team", kind="group", person="Ann", bot="ben").person == ""
    assert room_reset(room_id="dm-1") and not room_reset(room_id="dm-1")
    assert room_bind(room_id="dm-1", kind="group", person=None, bot="ava").kind == "group"
    assert RoomBinding.objects.count() == 2


def test_the_people_command(memory_root, django_user_model):
    django_user_model.objects.create_user("sam")
    bot_create(slug="ava")
    assert "Registered Sam, console account sam" in run_command(
        "people", "add", "Sam", "--user", "sam"
    )
    assert "may now act for sam" in run_command("people", "link", "sam", "ava")
    assert run_command("people", "list").split() == ["Sam", "sam", "ava"]
    assert "may now edit ava" in run_command("people", "editor", "sam", "ava")
    room_bind(room_id="dm-1", kind="direct", person="Sam", bot="ava")
    assert run_command("people", "rooms").split() == [
        "dm-1",
        "direct",
        "with",
        "Sam",
        "(first:",
        "ava)",
    ]
    assert "reset" in run_command("people", "reset-room", "dm-1")
    with pytest.raises(CommandError, match="No person 'zed'"):
        run_command("people", "link", "zed", "ava")


def test_the_demo_registers_and_links_its_people(memory_root):
    from memstore.management.demo import DEMO_LINKS, demo_workspace

    demo_workspace(say=lambda line: None)
    demo_workspace(say=lambda line: None)
    assert {name: tuple(person_bots(person=name)) for name in DEMO_LINKS} == DEMO_LINKS
    assert sorted(Person.objects.values_list("name", "user__username")) == [
        ("demo", "demo"),
        ("sam", "sam"),
    ]
