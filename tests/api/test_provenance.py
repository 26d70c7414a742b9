"""Who saved a line, on the line itself: a save through the API says which bot and which door
(`by=`, `via=`); a fact the person asked to be remembered also says who asked (`for=`)."""

from memstore.facts.markdown import parse_text
from tests.helpers import BotClient


def _meta_of(memory_root, rel: str, text: str) -> dict[str, str]:
    lines = parse_text((memory_root / rel).read_text())
    [fact] = [line.fact for line in lines if line.fact and line.fact.text == text]
    return fact.meta


def test_a_save_through_the_api_names_the_bot_and_the_door(memory_root, bot_a):
    answer = bot_a.post("/facts", {"text": "Ships on Fridays", "type": "decision"})
    assert answer.status == 201, answer.body
    assert _meta_of(memory_root, answer.body["file"], "Ships on Fridays") == {
        "type": "decision",
        "by": "a",
        "via": "api",
    }
    assert answer.body["meta"]["by"] == "a"


def test_a_fact_the_person_asked_for_names_them_too(memory_root, bot_a: BotClient):
    answer = bot_a.post(
        "/exchanges",
        {
            "message": "Remember that the offsite is in Porto.",
            "reply": "Noted.",
            "message_id": "m1",
            "reply_id": "r1",
        },
    )
    assert answer.status == 202, answer.body
    [kept] = answer.body["remembered"]
    meta = _meta_of(memory_root, "users/alice/memory/by-agent/a/profile.md", kept["text"])
    assert (meta["by"], meta["via"], meta["for"]) == ("a", "tool", "alice")
