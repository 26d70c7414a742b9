"""The About me page: a person's own memory merged across bots, search (full page and htmx
partial), edit and forget through the row endpoints, forget everywhere, the controls and their
history, the export download, what can reach their prompts, and privacy (own page only; staff
may open anyone's)."""

import io
import json
import zipfile

from memstore.facts.paths import Scope
from memstore.rules.controls import person_controls
from memstore.store.selectors import facts_list
from tests.helpers import day, texts_on_disk, write_memory


def _link_ann(*bots: str) -> None:
    # "What can reach my prompts" is per bot linked to the person (the registry's links).
    from memstore.models import Bot
    from memstore.registry.people import person_add, person_link

    person_add(name="ann", username="ann", exist_ok=True)
    for bot in bots:
        Bot.objects.get_or_create(slug=bot)
        person_link(person="ann", bot=bot)


def _ann_memory(root):
    write_memory(
        root,
        "users/ann/memory/by-agent/ben/profile.md",
        f"- ({day(3)}) Ann is planning the Lisbon offsite <!-- src=room:dm-ann/msg:7 via=learner -->",
        f"- ({day(4)}) Ann keeps a secret diary <!-- visibility=hidden -->",
        f"- ({day(5)}) Ann's shoe size is 38 <!-- visibility=searchable -->",
    )


def test_about_me_merges_every_bots_shard_with_writer_and_room(ann, workspace):
    _ann_memory(workspace)
    page = ann.get("/me/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Ann wants reports to lead with decisions" in html  # ava's shard
    assert "Ann is planning the Lisbon offsite" in html  # ben's shard
    assert "from room dm-ann" in html
    assert "Sam is vegetarian" not in html
    assert "4 facts known by the bots" in html


def test_search_filters_the_full_page_and_the_htmx_partial(ann, workspace):
    _ann_memory(workspace)
    full = ann.get("/me/", {"q": "LISBON"}).content.decode()
    assert "Ann is planning the Lisbon offsite" in full
    assert "Ann wants reports" not in full
    assert "Controls" in full and "Bots that know me" in full
    part = ann.get("/me/", {"q": "lisbon"}, HTTP_HX_REQUEST="true")
    html = part.content.decode()
    assert html.lstrip().startswith('<div id="about-facts">')
    assert "1 fact match “lisbon”" in html
    assert "<html" not in html and "Controls" not in html


def test_a_person_sees_only_their_own_and_staff_may_open_anyones(client, people, workspace):
    client.force_login(people["ann"])
    for url in ("/people/sam/", "/me/?person=sam", "/people/sam/export/", "/people/sam/prompts/"):
        refused = client.get(url)
        assert refused.status_code == 403, url
        assert "Sam is vegetarian" not in refused.content.decode()
    refused = client.post("/people/sam/controls/", {"action": "pause"})
    forget = client.post("/people/sam/forget/", {"id": _id_of(workspace, "sam", "Sam is veg")})
    assert (refused.status_code, forget.status_code) == (403, 403)
    assert person_controls(person="sam").paused is False
    assert texts_on_disk(workspace)["users/sam/memory/by-agent/ava/profile.md"]
    client.force_login(people["boss"])
    for url in ("/people/sam/", "/me/?person=sam"):
        page = client.get(url).content.decode()
        assert "About sam" in page and "Sam is vegetarian" in page
    client.post("/people/sam/controls/", {"action": "pause"})
    assert person_controls(person="sam").paused is True


def _id_of(root, person: str, start: str) -> str:
    facts = facts_list(scopes=[Scope("user", person)]).items
    return next(f.fact_id for f in facts if f.text.startswith(start))


def test_controls_change_in_place_for_htmx_and_show_their_history(ann, workspace):
    paused = ann.post("/people/ann/controls/", {"action": "pause"}, HTTP_HX_REQUEST="true")
    html = paused.content.decode()
    assert html.lstrip().startswith('<section class="card" id="controls"')
    assert "Memory is paused." in html and "Resume memory" in html
    assert "ann paused memory (console)" in html
    ann.post(
        "/people/ann/controls/", {"action": "exclude", "topic": "Divorce"}, HTTP_HX_REQUEST="true"
    )
    page = ann.get("/me/").content.decode()
    assert '<span class="topic">divorce</span>' in page
    assert "ann excluded the topic “divorce” (console)" in page
    assert person_controls(person="ann").topics == ("divorce",)


def test_controls_without_javascript_redirect_back_and_refusals_change_nothing(ann, workspace):
    response = ann.post("/people/ann/controls/", {"action": "exclude", "topic": "health"})
    assert (response.status_code, response.url) == (302, "/people/ann/")
    blank = ann.post(
        "/people/ann/controls/", {"action": "exclude", "topic": "  "}, HTTP_HX_REQUEST="true"
    )
    assert blank.status_code == 422
    assert "Write the topic to exclude" in blank.content.decode()
    bad = ann.post("/people/ann/controls/", {"action": "explode"})
    assert bad.status_code == 422
    assert person_controls(person="ann").topics == ("health",)


def test_forget_everywhere_removes_every_bots_copy(ann, workspace):
    write_memory(
        workspace,
        "users/ann/memory/by-agent/ben/profile.md",
        f"- ({day(20)}) Ann wants reports to lead with decisions",
        f"- ({day(2)}) Ann likes tea",
    )
    fact_id = _id_of(workspace, "ann", "Ann wants reports")
    response = ann.post("/people/ann/forget/", {"id": fact_id}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Forgotten everywhere (ava, ben)." in response.content.decode()
    assert texts_on_disk(workspace)["users/ann/memory/by-agent/ben/profile.md"] == ["Ann likes tea"]
    assert "users/ann/memory/by-agent/ava/profile.md" not in texts_on_disk(workspace)
    again = ann.post("/people/ann/forget/", {"id": fact_id}, HTTP_HX_REQUEST="true")
    assert again.status_code == 404


def test_export_is_a_zip_of_the_markdown_files_and_their_metadata(ann, workspace):
    _ann_memory(workspace)
    response = ann.get("/people/ann/export/")
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith('attachment; filename="about-ann-')
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert sorted(archive.namelist()) == [
        "controls.json",
        "facts.jsonl",
        "users/ann/memory/by-agent/ava/profile.md",
        "users/ann/memory/by-agent/ben/profile.md",
    ]
    on_disk = (workspace / "users/ann/memory/by-agent/ben/profile.md").read_bytes()
    assert archive.read("users/ann/memory/by-agent/ben/profile.md") == on_disk
    facts = [json.loads(line) for line in archive.read("facts.jsonl").splitlines()]
    assert len(facts) == 4 and {f["scope_name"] for f in facts} == {"ann"}
    lisbon = next(f for f in facts if "Lisbon" in f["text"])
    assert (lisbon["bot"], lisbon["meta"]["src"]) == ("ben", "room:dm-ann/msg:7")


def test_export_holds_the_about_you_note_with_its_versions_the_controls_and_history(ann, workspace):
    from memstore.facts.paths import Scope
    from memstore.prompt.notes import note_save, note_versions
    from memstore.rules.controls import memory_pause, topic_exclude
    from memstore.store.services import fact_forget, fact_remember

    note_save(kind="you", name="ann", text="Call me Ann. I work in Lisbon.")
    note_save(kind="you", name="ann", text="Call me Ann. I work in Porto now.")
    memory_pause(person="ann", by="ann", via="console")
    topic_exclude(person="ann", topic="bonus", by="ann", via="console")
    shard = Scope("user", "ann").shard("ava")
    fact_remember(shard=shard, text="Ann takes the 8:10 train", by="ava")
    fact_forget(shards=[shard], text="Ann takes the 8:10 train", by="ann", via="console")
    archive = zipfile.ZipFile(io.BytesIO(ann.get("/people/ann/export/").content))
    names = archive.namelist()
    assert (
        archive.read("users/ann/notes/about-you.md")
        .decode()
        .startswith("Call me Ann. I work in Porto")
    )
    versions = [n for n in names if n.startswith("users/ann/notes/versions/about-you/")]
    assert len(versions) == len(note_versions(kind="you", name="ann")) >= 1
    assert any("I work in Lisbon" in archive.read(v).decode() for v in versions)
    assert json.loads(archive.read("controls.json")) == {
        "person": "ann",
        "paused": True,
        "topics": ["bonus"],
    }
    audit = [json.loads(line) for line in archive.read("users/ann/controls.jsonl").splitlines()]
    assert [(a["action"], a["topic"]) for a in audit] == [("pause", ""), ("exclude", "bonus")]
    history = archive.read("users/ann/memory/by-agent/ava/history.jsonl").decode()
    assert history.count("Ann takes the 8:10 train") == 2  # added, then forgotten by ann
    assert all(
        json.loads(line)["file"].endswith(".md")
        for line in archive.read("facts.jsonl").splitlines()
    )


def test_what_can_reach_my_prompts_per_bot_and_room_kind(ann, workspace, settings):
    _ann_memory(workspace)
    write_memory(
        workspace,
        "users/ann/memory/by-agent/ben/log/2020-01.md",
        "- (2020-01-02) Ann liked the 2020 offsite",
    )
    settings.PROMPT_BUDGETS = {"user": {"recent": (0, 0)}}
    _link_ann("ava", "ben")
    html = ann.get("/people/ann/prompts/").content.decode()
    sections = html.split('<section class="card reach"')[1:]
    assert [s.split(">")[0] for s in sections] == [
        f' data-bot="{bot}" data-kind="{kind}"'
        for bot in ("ava", "ben")
        for kind in ("direct", "group", "routine")
    ]
    direct = sections[0]
    shown = direct.split('<ul class="shown">')[1].split("</ul>")[0]
    assert "Ann wants reports to lead with decisions" in shown
    assert "Ann is planning the Lisbon offsite" in shown
    assert 'Ann keeps a secret diary</span> — <span class="why">hidden' in direct
    assert 'shoe size is 38</span> — <span class="why">searchable only' in direct
    assert '2020 offsite</span> — <span class="why">past the prompt' in direct
    group = sections[1]
    assert "Nothing of your memory goes into this prompt." in group
    assert group.count("not this room kind") == 5


def test_edit_forget_and_undo_one_bots_copy_from_the_about_me_row(ann, workspace):
    _ann_memory(workspace)
    page = ann.get("/me/").content.decode()
    fact_id = _id_of(workspace, "ann", "Ann is planning")
    file = "users/ann/memory/by-agent/ben/profile.md"
    assert f'hx-get="/people/ann/edit/?file={file}&amp;id={fact_id}"' in page
    form = ann.get("/people/ann/edit/", {"file": file, "id": fact_id}, HTTP_HX_REQUEST="true")
    assert "Ann is planning the Lisbon offsite</textarea>" in form.content.decode()
    edit = {"file": file, "id": fact_id, "expected": "Ann is planning the Lisbon offsite"}
    edited = ann.post(
        "/people/ann/edit/",
        edit | {"text": "Ann is planning the Porto offsite"},
        HTTP_HX_REQUEST="true",
    )
    assert edited.status_code == 200
    assert 'written by <strong class="writer">ben</strong>' in edited.content.decode()
    assert texts_on_disk(workspace)[file][0] == "Ann is planning the Porto offsite"
    new_id = _id_of(workspace, "ann", "Ann is planning")
    gone = ann.post("/people/ann/delete/", {"file": file, "id": new_id}, HTTP_HX_REQUEST="true")
    assert "Forgot ben’s copy" in gone.content.decode()
    assert "Porto" not in repr(texts_on_disk(workspace))
    assert "Ann wants reports" in ann.get("/me/").content.decode()  # ava's copy untouched
    back = ann.post("/people/ann/undo/", {"file": file, "id": new_id}, HTTP_HX_REQUEST="true")
    assert back.status_code == 200
    assert "Ann is planning the Porto offsite" in texts_on_disk(workspace)[file]


def test_a_refused_edit_keeps_the_text_and_another_persons_file_is_refused(ann, workspace):
    from memstore.rules.controls import topic_exclude

    topic_exclude(person="ann", topic="divorce", by="ann", via="console")
    file = "users/ann/memory/by-agent/ava/profile.md"
    fact_id = _id_of(workspace, "ann", "Ann wants reports")
    expected = "Ann wants reports to lead with decisions"
    refused = ann.post(
        "/people/ann/edit/",
        {"file": file, "id": fact_id, "expected": expected, "text": "Ann got divorced"},
        HTTP_HX_REQUEST="true",
    )
    assert refused.status_code == 422
    assert "Ann got divorced</textarea>" in refused.content.decode()
    assert texts_on_disk(workspace)[file] == [expected]
    sams = "users/sam/memory/by-agent/ava/profile.md"
    sam_id = _id_of(workspace, "sam", "Sam is veg")
    for url in ("/people/ann/delete/", "/people/sam/delete/"):
        response = ann.post(url, {"file": sams, "id": sam_id}, HTTP_HX_REQUEST="true")
        assert response.status_code == 403, url
    assert texts_on_disk(workspace)[sams] == ["Sam is vegetarian"]


def test_the_about_you_note_reaches_direct_prompts_only(ann, workspace):
    from memstore.prompt.notes import note_save

    note_save(kind="you", name="ann", text="Call me Annie. I prefer short answers.")
    _link_ann("ava", "ben")
    html = ann.get("/people/ann/prompts/").content.decode()
    sections = html.split('<section class="card reach"')[1:]
    assert "Call me Annie." in sections[0]  # ava, direct
    assert "Call me Annie." not in sections[1]
    assert '“About you” note — <span class="why">not this room kind' in sections[1]
    assert "/notes/you/ann/" in ann.get("/me/").content.decode()


def test_bots_that_know_me_are_the_linked_bots_and_unlink_stops_the_next_call(ann, workspace):
    from memstore.registry.bots import bot_create
    from memstore.registry.people import person_add, person_bots, person_link

    bot_create(slug="cleo")
    person_add(name="ann", username="ann", exist_ok=True)
    person_link(person="ann", bot="cleo")  # linked, but has written nothing about ann yet
    html = ann.get("/me/").content.decode()
    assert 'aria-label="Unlink cleo"' in html
    answer = ann.post("/people/ann/unlink/", {"bot": "cleo"})
    assert answer.status_code == 302
    assert "cleo" not in person_bots(person="ann")
    assert 'aria-label="Unlink cleo"' not in ann.get("/me/").content.decode()
