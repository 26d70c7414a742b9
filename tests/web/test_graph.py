"""The console's graph of links: a server-rendered SVG of a bot's store and of one fact's
neighbourhood, with the same links listed in words; private memory stays private."""

import re

from memstore.facts import markdown
from tests.helpers import day, write_memory

PLANS = "Plans offsites and budgets for the Lisbon team"
VENUE = "Booked the rooftop venue for the offsite"
SAM = "Sam is vegetarian"


def link(root, rel: str, text: str, *targets: tuple[str, str]) -> None:
    rel_value = ",".join(f"{kind}:{markdown.fact_identity(t)}" for kind, t in targets)
    write_memory(root, rel, f"- ({day(3)}) {text} <!-- rel={rel_value} -->")


def test_store_graph_draws_links_as_svg_and_lists_them(ann, workspace):
    link(workspace, "agents/ava/memory/profile.md", VENUE, ("exemplifies", PLANS))
    write_memory(workspace, "agents/ava/memory/log/2020-01.md", f"- ({day(40)}) {PLANS}")
    page = ann.get("/bots/ava/graph/")
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('<line class="edge kind-exemplifies"') == 1
    assert html.count("<circle ") == 2
    assert "<script>" not in html.split("<figure")[1]  # CSP: nothing to run in the drawing
    items = re.findall(r"<li><a[^>]*>([^<]+)</a> <span[^>]*>(\w+)</span> <a[^>]*>([^<]+)</a>", html)
    assert items == [(VENUE, "exemplifies", PLANS)]


def test_a_facts_neighbourhood_marks_an_archived_end(ann, workspace):
    link(workspace, "agents/ava/memory/profile.md", VENUE, ("supersedes", "Gone fact"))
    venue = markdown.fact_identity(VENUE)
    page = ann.get(f"/bots/ava/graph/?fact={venue}").content.decode()
    assert 'class="node centre"' in page
    assert 'class="node unknown"' in page
    assert "archived, or in memory not shown here" in page


def test_another_persons_memory_is_not_drawn(ann, workspace):
    link(
        workspace,
        "users/sam/memory/by-agent/ava/profile.md",
        "Sam skips lunch",
        ("related_to", SAM),
    )
    write_memory(workspace, "users/sam/memory/by-agent/ava/log/2020-01.md", f"- ({day(9)}) {SAM}")
    assert "Sam skips lunch" not in ann.get("/bots/ava/graph/").content.decode()
    assert "No links yet" in ann.get("/bots/ava/graph/").content.decode()


def test_unknown_bot_or_bad_fact_id_is_404(ann, workspace):
    assert ann.get("/bots/nobody/graph/").status_code == 404
    assert ann.get("/bots/ava/graph/?fact=../../etc").status_code == 404


def test_no_links_says_how_to_add_them(ann, workspace):
    assert "No links yet" in ann.get("/bots/ava/graph/").content.decode()
