"""The static tier of meaning: a token table distilled once from the bundled model, and the
embedder that turns a text into the weighted mean of its tokens' rows.

Owns: distilling the table (`static_build`: every vocabulary token run through the bundled
bge-small on its own as `[CLS] token [SEP]`, its CLS output kept; the rows centred on the mean
word token, reduced by PCA to `DIMS` dimensions and each multiplied by a Zipf/SIF weight from its
vocabulary rank), caching it in a folder under a name carrying the model file's SHA-256, loading
it (`static_load`, which never builds), and `StaticEmbedder`.

A static vector is a function of its text alone: the text's WordPiece ids (no [CLS]/[SEP]), the
sum of their rows, L2-normalised, computed one text at a time whatever the batch. A table is
deterministic too (one token per model run, whatever the threads), and the embedder's name
carries a digest of the table's bytes, so vectors from another table are never mixed in.

It is a first, rough tier: about 13,000 texts a second on one core against a few hundred for the
full model, weaker than words alone on its own, useful for the facts still waiting for their
full vector (recall ranks those by it as a list of its own and drops it once the full vector is
there). Distilling takes about 2 minutes of one core; the worker does it on first need, or
`manage.py recall_static` up front. Nothing is downloaded.

Does not: store vectors, search or rank (see `vectors`, `sides`), or read Django settings.
"""

import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from memstore.recall.embeddings import BGE_MAX_TOKENS, BGE_SMALL_SHA256, model_files_check

logger = logging.getLogger(__name__)

DIMS = 256  # principal components kept: as good as all 384, a third less to store and scan
SIF = 1e-4  # weight a / (a + p(token)): frequent tokens count for little
FIRST_USABLE_ID = 999  # bert-base-uncased: [PAD], [unusedN], [UNK], [CLS], [SEP], [MASK] below
FIRST_WORD_ID = 1996  # "the": from here on words come roughly in frequency order
CLS, SEP = 101, 102
METHOD = "cls-pca256-sif1e4"  # how a table is made: a change of method must change this


def static_file(folder: Path, *, ids: Iterable[int] | None = None) -> Path:
    """Where the table distilled from the bundled model (its SHA-256 in the name) is cached;
    a table from a subset of the vocabulary (`ids`, for tests) has a name of its own."""
    key = BGE_SMALL_SHA256["model.onnx"][:16]
    subset = ""
    if ids is not None:
        subset = "-" + hashlib.sha256(np.asarray(sorted(ids), np.int64).tobytes()).hexdigest()[:8]
    return folder / f"static-{key}-{METHOD}{subset}.npy"


def static_weights(vocab_size: int, sif: float = SIF) -> np.ndarray:
    """Each token's weight: SIF over a Zipf probability from its vocabulary rank (single
    characters and punctuation count as the most frequent; special and unused ids weigh 0)."""
    ids = np.arange(vocab_size)
    rank = np.where(ids >= FIRST_WORD_ID, ids - FIRST_WORD_ID + 1, 1).astype(np.float64)
    harmonic = np.sum(1.0 / np.arange(1, vocab_size - FIRST_WORD_ID + 2))
    weights = sif / (sif + 1.0 / (rank * harmonic))
    weights[:FIRST_USABLE_ID] = 0.0
    return weights


def static_distil(
    model_dir: Path,
    *,
    ids: Iterable[int] | None = None,
    threads: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Each token's CLS output, (vocab, 384) float32; rows outside `ids` (default: every usable
    token) stay zero. One sequence per run: the int8 model's dynamic quantisation makes
    batch-mates matter, so this is the same table on any number of threads."""
    import onnxruntime
    from tokenizers import Tokenizer

    model_files_check(model_dir)
    vocab_size = Tokenizer.from_file(str(model_dir / "tokenizer.json")).get_vocab_size()
    wanted = sorted(set(ids) if ids is not None else range(FIRST_USABLE_ID, vocab_size))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
    )
    names = {i.name for i in session.get_inputs()}
    raw = np.zeros((vocab_size, 384), dtype=np.float32)
    done = [0]
    lock = threading.Lock()

    def run(share: list[int]) -> None:
        for token in share:
            feeds = {
                "input_ids": np.asarray([[CLS, token, SEP]], dtype=np.int64),
                "attention_mask": np.ones((1, 3), dtype=np.int64),
                "token_type_ids": np.zeros((1, 3), dtype=np.int64),
            }
            raw[token] = session.run(None, {k: v for k, v in feeds.items() if k in names})[0][0, 0]
            with lock:
                done[0] += 1
                if progress is not None and done[0] % 1000 == 0:
                    progress(done[0], len(wanted))

    threads = max(1, threads)
    with ThreadPoolExecutor(threads, thread_name_prefix="static-distil") as pool:
        list(pool.map(run, [wanted[i::threads] for i in range(threads)]))
    return raw


def static_reduce(raw: np.ndarray, dims: int = DIMS) -> np.ndarray:
    """The table a text is embedded with: rows centred on the mean distilled token, projected
    on the top `dims` principal components, times their weights; (vocab, dims) float32."""
    used = np.flatnonzero(raw.any(axis=1))
    used = used[used >= FIRST_USABLE_ID]
    rows = raw[used].astype(np.float64)
    mean = rows.mean(axis=0)
    values, vectors = np.linalg.eigh((rows - mean).T @ (rows - mean))
    top = vectors[:, np.argsort(values)[::-1][:dims]]
    # An eigenvector's sign is arbitrary: fix it so the largest component is positive.
    top *= np.sign(top[np.abs(top).argmax(axis=0), np.arange(top.shape[1])])
    table = np.zeros((raw.shape[0], dims), dtype=np.float64)
    table[used] = (rows - mean) @ top
    table *= static_weights(raw.shape[0])[:, None]
    return table.astype(np.float32)


def static_build(
    folder: Path,
    model_dir: Path,
    *,
    ids: Iterable[int] | None = None,
    threads: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Distil and cache the table (kept if already there); its path."""
    ids = list(ids) if ids is not None else None
    path = static_file(folder, ids=ids)
    if path.is_file():
        return path
    table = static_reduce(static_distil(model_dir, ids=ids, threads=threads, progress=progress))
    folder.mkdir(parents=True, exist_ok=True)
    # Written beside and renamed: a reader (another process) sees the whole table or none.
    partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    with partial.open("wb") as stream:
        np.save(stream, table.astype(np.float16))
    os.replace(partial, path)
    return path


class StaticEmbedder:
    """Texts to static vectors: the sum of their tokens' (weighted) rows, normalised; queries
    get no prefix. Implements the `Embedder` protocol."""

    dim = DIMS
    one_per_run = False  # microseconds a text: no threads needed
    static = True

    def __init__(self, table: np.ndarray, model_dir: Path) -> None:
        from tokenizers import Tokenizer

        self._table = np.ascontiguousarray(table, dtype=np.float32)
        digest = hashlib.sha256(np.ascontiguousarray(table).tobytes()).hexdigest()[:12]
        self.name = f"bge-small-en-v1.5-int8/static-{digest}"
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(BGE_MAX_TOKENS)

    def _vector(self, ids: list[int]) -> np.ndarray:
        vector = self._table[ids].sum(axis=0) if ids else np.zeros(self.dim, np.float32)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """(n, DIMS) rows, each computed on its own (the tokeniser runs on the batch)."""
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        for i, encoding in enumerate(encodings):
            result[i] = self._vector(encoding.ids)
        return result

    def embed_query(self, text: str) -> np.ndarray:
        """A query's static vector: the same sum as a fact's (the tier has no query prefix)."""
        return self._vector(self._tokenizer.encode(text, add_special_tokens=False).ids)


_loaded: dict[Path, StaticEmbedder] = {}
_load_lock = threading.Lock()


def static_load(path: Path, model_dir: Path) -> StaticEmbedder | None:
    """The embedder for a cached table (loaded once per process), or None when there is none
    yet or it cannot be read (recall then goes on without the tier)."""
    with _load_lock:
        if path in _loaded:
            return _loaded[path]
        if not path.is_file():
            return None
        try:
            embedder = StaticEmbedder(np.load(path), model_dir)
        except (OSError, ValueError):
            logger.exception("could not read the static tier's table %s", path)
            return None
        _loaded[path] = embedder
        return embedder


def static_forget() -> None:
    """Forget the tables loaded in this process (tests)."""
    with _load_lock:
        _loaded.clear()
