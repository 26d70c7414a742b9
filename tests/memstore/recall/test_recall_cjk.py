"""CJK text is searched by its words too: Japanese and Chinese write no spaces, so Postgres's
parser reads a whole clause as one "word" and a question shares none of them with a fact. Recall
reads a run of Han, kana or Hangul as its overlapping character pairs (bigrams), in the facts
and in the query, so the fact holding the query's words ranks first."""

import pytest

from memstore.recall import recall_search
from memstore.rooms.access import Context, Room
from tests.helpers import log

pytestmark = pytest.mark.django_db

FACTS = [
    "- (2026-11-01) 東京のオフィスは渋谷にあります",
    "- (2026-11-02) 毎週金曜日に寿司を食べます",
    "- (2026-11-03) 来月から大阪に出張します",
    "- (2026-11-04) 他喜欢喝绿茶，不喝咖啡",
    "- (2026-11-05) 我们的服务器部署在上海",
    "- (2026-11-06) 下周三开始休假",
    "- (2026-11-07) Prefers tea over coffee",
    "- (2026-11-08) Moved to the NYC office in October",
]


@pytest.fixture
def cjk(memory_root, settings):
    settings.EMBEDDINGS = "none"
    log(memory_root, "bot", "ada", "2026-11", *FACTS)


def texts(query: str) -> list[str]:
    result = recall_search(ctx=Context(bot="ada", room=Room("room-1", "routine")), query=query)
    return [fact.text for fact in result.items]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("寿司はいつ食べますか？", "毎週金曜日に寿司を食べます"),
        ("オフィスはどこ", "東京のオフィスは渋谷にあります"),
        ("大阪への出張", "来月から大阪に出張します"),
        ("他喜欢喝什么茶？", "他喜欢喝绿茶，不喝咖啡"),
        ("服务器在哪里", "我们的服务器部署在上海"),
        ("什么时候休假", "下周三开始休假"),
    ],
)
def test_a_cjk_question_finds_the_fact_holding_its_words_first(cjk, query, expected):
    assert texts(query)[:1] == [expected]


def test_latin_words_still_rank_as_before_beside_cjk_facts(cjk):
    assert texts("coffee") == ["Prefers tea over coffee"]
    assert texts("NYC") == ["Moved to the NYC office in October"]


def test_a_cjk_word_in_no_fact_finds_nothing(cjk):
    assert texts("新幹線") == []
