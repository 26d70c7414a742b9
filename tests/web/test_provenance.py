"""Who saved a line, in the console: a person's save says so on the line (`by=<them>
via=console`), and an edit shows the same author right after it as after a reload."""

import pytest

from memstore.facts.markdown import fact_identity, parse_text
from tests.helpers import HX, day

pytestmark = pytest.mark.django_db

ROOFTOP = "Booked the rooftop venue for the offsite"


def _meta_of(root, rel: str, text: str) -> dict[str, str]:
    [fact] = [
        line.fact
        for line in parse_text((root / rel).read_text())
        if line.fact and line.fact.text == text
    ]
    return fact.meta


def test_a_save_in_the_console_names_the_person(ann, workspace):
    data = {"scope": "bot:ava", "tier": "profile", "type": "fact", "visibility": "context"}
    response = ann.post("/bots/ava/facts/add/", data | {"text": "Prefers window seats"})
    assert response.status_code == 302
    meta = _meta_of(workspace, "agents/ava/memory/profile.md", "Prefers window seats")
    assert (meta["by"], meta["via"]) == ("ann", "console")


def test_an_edits_author_is_the_same_after_a_reload(ann, workspace):
    file = f"agents/ava/memory/log/{day(1):%Y-%m}.md"
    ref = {"file": file, "id": fact_identity(ROOFTOP)}
    saved = ann.post(
        "/bots/ava/facts/edit/",
        ref | {"expected": ROOFTOP, "text": "Booked the rooftop venue"},
        **HX,
    ).content.decode()
    reloaded = ann.get("/bots/ava/").content.decode()
    [row] = [
        li for li in reloaded.split('<li class="fact') if ">Booked the rooftop venue</p>" in li
    ]
    assert "by ann via console" in saved
    assert "by ann via console" in row and "by ava" not in row
    assert _meta_of(workspace, file, "Booked the rooftop venue")["by"] == "ann"


def test_a_row_names_the_person_who_acted_through_the_bot(ann, workspace):
    rel = f"agents/ava/memory/log/{day(1):%Y-%m}.md"
    with (workspace / rel).open("a") as file:
        file.write(f"- ({day(1)}) Prefers aisle seats <!-- by=ava via=tool for=sam -->\n")
    page = ann.get("/bots/ava/").content.decode()
    [row] = [li for li in page.split('<li class="fact') if ">Prefers aisle seats</p>" in li]
    assert "by ava via tool for sam" in row
