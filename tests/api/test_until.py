"""Valid until and review by over the API (issue 23 part 3): a fact past its `until` day stays
in its file but leaves the prompt and recall, is listed as expired (with a filter), and comes
back when its date is edited; bad dates are a 422 naming the field."""

from datetime import date, timedelta

import pytest

from tests.helpers import write_facts, write_memory

TODAY = date.today()
YESTERDAY = (TODAY - timedelta(days=1)).isoformat()
TOMORROW = (TODAY + timedelta(days=1)).isoformat()


def test_remember_writes_until_and_review_on_the_line(memory_root, bot_a):
    answer = bot_a.post(
        "/facts", {"text": "Travelling to Lisbon", "until": TOMORROW, "review": TOMORROW}
    )
    assert answer.status == 201, answer.body
    assert answer.body["meta"] == {"until": TOMORROW, "review": TOMORROW, "by": "a", "via": "api"}
    assert answer.body["expired"] is False
    line = f"Travelling to Lisbon <!-- until={TOMORROW} review={TOMORROW} by=a via=api -->"
    assert line in (memory_root / answer.body["file"]).read_text()


@pytest.mark.parametrize(
    ("field", "value"),
    [("until", "next week"), ("until", "2026-02-30"), ("review", "12/01/2026"), ("review", "")],
)
def test_a_bad_date_is_refused_naming_the_field_and_nothing_is_written(
    memory_root, bot_a, field, value
):
    answer = bot_a.post("/facts", {"text": "Travelling to Lisbon", field: value})
    assert answer.status == 422
    assert f"body.{field}" in answer.body["message"], answer.body
    assert not list(memory_root.rglob("*.md"))


def test_an_expired_fact_leaves_prompt_and_recall_and_is_listed_as_expired(memory_root, bot_a):
    gone = bot_a.post("/facts", {"text": "Travelling to Lisbon next week", "until": YESTERDAY})
    today = bot_a.post(
        "/facts", {"text": "Travelling to Porto this week", "until": TODAY.isoformat()}
    )
    assert (gone.status, today.status) == (201, 201)

    prompt = bot_a.get("/prompt").body["text"]
    assert "Lisbon" not in prompt
    assert "Porto" in prompt  # the `until` day itself is still true
    found = [f["text"] for f in bot_a.get("/recall", query="travelling").body["items"]]
    assert found == ["Travelling to Porto this week"]
    assert bot_a.get("/recall", query="Lisbon").body["items"] == []

    listed = {f["text"]: f["expired"] for f in bot_a.get("/facts").body["items"]}
    assert listed == {
        "Travelling to Lisbon next week": True,
        "Travelling to Porto this week": False,
    }
    only = bot_a.get("/facts", expired="true").body
    assert ([f["text"] for f in only["items"]], only["total"]) == (
        ["Travelling to Lisbon next week"],
        1,
    )
    rest = bot_a.get("/facts", expired="false").body
    assert [f["text"] for f in rest["items"]] == ["Travelling to Porto this week"]
    assert "Lisbon next week" in (memory_root / gone.body["file"]).read_text()  # kept


def test_editing_the_date_brings_an_expired_fact_back_and_null_removes_it(memory_root, bot_a):
    saved = bot_a.post("/facts", {"text": "Travelling to Lisbon", "until": YESTERDAY}).body
    assert bot_a.get("/recall", query="Lisbon").body["items"] == []

    later = bot_a.patch(
        f"/facts/{saved['id']}", {"text": "Travelling to Lisbon", "until": TOMORROW}
    )
    assert later.status == 200, later.body
    saved_by = {"by": "a", "via": "api"}  # an edit keeps who saved the line
    assert (later.body["meta"], later.body["expired"]) == ({"until": TOMORROW} | saved_by, False)
    assert [f["text"] for f in bot_a.get("/recall", query="Lisbon").body["items"]] == [
        "Travelling to Lisbon"
    ]
    assert "Lisbon" in bot_a.get("/prompt").body["text"]

    cleared = bot_a.patch(f"/facts/{saved['id']}", {"text": "Travelling to Lisbon", "until": None})
    assert cleared.body["meta"] == saved_by
    line = (memory_root / saved["file"]).read_text().splitlines()[-1]
    assert line.endswith("Travelling to Lisbon <!-- by=a via=api -->")
    kept = bot_a.patch(
        f"/facts/{saved['id']}", {"text": "Travelling to Lisbon", "review": TOMORROW}
    )
    assert kept.body["meta"] == saved_by | {"review": TOMORROW}  # naming no until keeps none


def test_an_edit_with_a_bad_date_is_a_422_naming_the_field(memory_root, bot_a):
    saved = bot_a.post("/facts", {"text": "Travelling to Lisbon"}).body
    answer = bot_a.patch(f"/facts/{saved['id']}", {"text": "Travelling to Lisbon", "until": "soon"})
    assert answer.status == 422
    assert "body.until" in answer.body["message"]


def test_a_hand_written_until_expires_a_fact_and_an_unreadable_one_never_does(memory_root, bot_a):
    write_facts(
        memory_root,
        "agents/a/memory/profile.md",
        f"Desk on floor 3 <!-- until={YESTERDAY} -->",
        "Desk on floor 5 <!-- until=friday -->",
    )
    found = [f["text"] for f in bot_a.get("/recall", query="desk floor").body["items"]]
    assert found == ["Desk on floor 5"]
    prompt = bot_a.get("/prompt").body["text"]
    assert "floor 5" in prompt and "floor 3" not in prompt


@pytest.mark.parametrize("query", ["Lisbon", "isbo"], ids=["by words", "as typed (the fallback)"])
def test_more_counts_only_facts_recall_could_return(memory_root, bot_a, query):
    # Three facts past their `until` day match too, but recall never returns them: "N more"
    # must not promise them (the bot would page for facts that never come).
    write_memory(
        memory_root,
        "agents/a/memory/profile.md",
        *(f"- (2026-11-0{i}) Flight {i} to Lisbon <!-- until={YESTERDAY} -->" for i in (1, 2, 3)),
        f"- ({TODAY - timedelta(days=1)}) Hotel in Lisbon booked",
        f"- ({TODAY}) Lisbon tram tickets bought",
    )
    first = bot_a.get("/recall", query=query, limit=1).body
    assert (len(first["items"]), first["more"]) == (1, 1), first
    both = bot_a.get("/recall", query=query, limit=5).body
    assert (len(both["items"]), both["more"]) == (2, 0), both


def test_more_leaves_out_expired_facts_ranked_past_the_rows_recall_read(memory_root, bot_a):
    # 30 matches, 12 of them past their `until` day; recall reads only the rows it may show
    # (and a few spare), so most expired ones are ranked past what it read: still not promised.
    write_memory(
        memory_root,
        "agents/a/memory/profile.md",
        *(
            f"- (2026-10-{10 + i:02d}) Lisbon trip note {i}"
            + (f" <!-- until={YESTERDAY} -->" if i % 5 < 2 else "")
            for i in range(30)
        ),
    )
    every = bot_a.get("/recall", query="Lisbon trip", limit=50).body
    assert every["more"] == 0 and not any(" until=" in item["text"] for item in every["items"])
    answer = bot_a.get("/recall", query="Lisbon trip", limit=3).body
    # a bot paging for the "N more" gets exactly N
    assert (len(answer["items"]), answer["more"]) == (3, len(every["items"]) - 3), answer
