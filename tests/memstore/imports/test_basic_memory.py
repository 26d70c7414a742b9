"""`manage.py import basic-memory`: a Basic Memory folder whose observations become typed facts
and whose relations become links between them.

The note format reproduced is Basic Memory's (basicmachines-co/basic-memory, its "knowledge
format" docs): front matter `title`, `type`, `permalink`, `tags`, then `## Observations` as
`- [category] text #tag (context)` and `## Relations` as `- relation_type [[Target]]`.
"""

import pytest

from memstore.facts.markdown import make_fact
from memstore.models import Link
from memstore.registry.bots import bot_create, project_join
from tests.memstore.imports.common import all_facts, run_import, write

COFFEE = """---
title: Coffee Brewing
type: note
permalink: coffee-brewing
tags:
- coffee
created: 2026-01-03
---

# Coffee Brewing

## Observations
- [decision] Buy a burr grinder #gear #coffee
- [technique] Pour over needs 94 C water (for light roasts)

## Relations
- relates_to [[Tea Ceremony]]
- requires [[Grinder Setup]]
- inspired_by [[Nowhere Note]]
- [x] Buy beans (a task, not an observation)
"""
TEA = """---
title: Tea Ceremony
permalink: tea-ceremony
created: 2026-01-04
---

## Observations
- [fact] Matcha is whisked, not steeped
"""
GRINDER = """---
title: Grinder Setup
created: 2026-01-05
---

- [preference] Grind size 18 for pour over #sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a
- [fact] The grinder sits left of the kettle
"""


def fid(text: str) -> str:
    from datetime import date

    return make_fact(text=text, day=date(2026, 1, 1)).identity


@pytest.fixture
def scout(db):
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    return "scout"


def test_observations_become_facts_and_relations_links(scout, tmp_path, memory_root):
    vault = tmp_path / "vault"
    write(vault / "coffee.md", COFFEE)
    write(vault / "tea.md", TEA)
    write(vault / "notes" / "grinder-setup.md", GRINDER)

    summary = run_import("basic-memory", str(vault), "--bot", "scout", "--project", "apollo")

    tea = fid("Tea Ceremony: Matcha is whisked, not steeped")
    grinder = fid("Grinder Setup: The grinder sits left of the kettle")
    assert all_facts(memory_root)["projects/apollo/memory/by-agent/scout/log/2026-01.md"] == [
        "- (2026-01-03) Coffee Brewing: Buy a burr grinder <!-- type=decision category=decision "
        f"tags=gear,coffee src=coffee.md:13 by=scout via=import rel=related_to:{tea},depends_on:{grinder} -->",
        "- (2026-01-03) Coffee Brewing: Pour over needs 94 C water (for light roasts) <!-- "
        "type=fact category=technique src=coffee.md:14 by=scout via=import -->",
        "- (2026-01-05) Grinder Setup: The grinder sits left of the kettle <!-- type=fact "
        "category=fact src=notes/grinder-setup.md:7 by=scout via=import -->",
        "- (2026-01-04) Tea Ceremony: Matcha is whisked, not steeped <!-- type=fact "
        "category=fact src=tea.md:8 by=scout via=import -->",
    ]
    assert Link.objects.count() == 2
    lines = summary.splitlines()
    assert lines[0] == "Imported 4 facts; 0 already there; 1 refused; 1 lines skipped; 2 links."
    assert "secret_refused" in summary  # the secret is in a tag
    assert "a relation to a note that is not in this folder (e.g. coffee.md:19)" in summary

    again = run_import("basic-memory", str(vault), "--bot", "scout", "--project", "apollo")
    assert again.splitlines()[0] == (
        "Imported 0 facts; 4 already there; 1 refused; 1 lines skipped."
    )
    assert Link.objects.count() == 2
