"""The About me page: a person's own memory merged across bots, search (full page and htmx
partial), edit and forget through the row endpoints, forget everywhere, the controls and their
history, the export download, what can reach their prompts, and privacy (own page only; staff
may open anyone's)."""

from tests.helpers import day, write_memory


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
