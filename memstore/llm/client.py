"""The model client every model call shares (learning, upkeep, synthesis, summarize): one chat
completion, no tools, and how many tokens it cost.

A `Prompt` carries what passed the outgoing gate (`memstore.rooms.outgoing`: `sent`), and the
client sends nothing else: a prompt whose `sent` the gate did not make is refused
(`UngatedText`) before any request.

The pipeline takes any object with `complete(prompt, max_tokens=)` (tests and benchmarks pass
their own). The production client uses the `openai` package against any OpenAI-compatible base
URL. It does not retry by itself: a failed call raises `ModelUnavailable` and the job queue
retries the whole exchange with backoff, so a retry is visible and survives a restart.
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from memstore.rooms.outgoing import Cleared, cleared_check
from memstore.vocabulary import tokens_estimate

_RETRY = {408, 409, 425, 429}  # client errors that pass with time


@dataclass(frozen=True, slots=True)
class Prompt:
    """A system and a user message for a chat completion, and what of memory and the room's
    words they quote, as the outgoing gate cleared it (`sent`)."""

    system: str
    user: str
    sent: Cleared | None = None


class ModelUnavailable(Exception):
    """The model endpoint failed: connection, timeout, 429, 5xx, a malformed answer (worth
    retrying), or a refusal that retrying cannot fix (`permanent`: bad key, unknown model)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True, slots=True)
class Completion:
    """A model's answer and the tokens it used (prompt plus completion)."""

    text: str
    tokens: int


class ModelClient(Protocol):
    def complete(self, prompt: Prompt, *, max_tokens: int) -> Completion: ...


class OpenAICompatibleClient:
    """Chat completions through the `openai` package, at temperature 0, with no tools."""

    def __init__(self, *, base_url: str, model: str, api_key: str = "", timeout: float = 60.0):
        import openai  # imported late: only workers talk to the model

        self.model = model
        self._errors = (openai.APIError, openai.OpenAIError)
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",  # local servers ignore it; the package wants one
            timeout=timeout,
            max_retries=0,  # the queue retries, with backoff, visibly
        )

    def complete(self, prompt: Prompt, *, max_tokens: int) -> Completion:
        cleared_check(prompt.sent)  # nothing leaves that skipped the gate
        try:
            response = self._client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                temperature=0,
                max_tokens=max_tokens,
            )
            text = response.choices[0].message.content or ""
        except self._errors as exc:
            status = getattr(exc, "status_code", None)
            permanent = isinstance(status, int) and 400 <= status < 500 and status not in _RETRY
            raise ModelUnavailable(f"{type(exc).__name__}: {exc}", permanent=permanent) from exc
        except (AttributeError, IndexError, TypeError, ValueError) as exc:
            raise ModelUnavailable(f"Malformed answer from the model endpoint: {exc}") from exc
        usage = getattr(response, "usage", None)
        tokens = getattr(usage, "total_tokens", None)
        if not isinstance(tokens, int) or tokens <= 0:
            # Some servers leave usage out; estimate it (at least one token was spent).
            tokens = max(1, tokens_estimate(len(prompt.system) + len(prompt.user) + len(text)))
        return Completion(text=text, tokens=tokens)


@lru_cache(maxsize=4)
def client_for(*, base_url: str, model: str, api_key: str, timeout: float) -> ModelClient:
    """One client per configuration and process (it keeps its HTTP connections open)."""
    return OpenAICompatibleClient(base_url=base_url, model=model, api_key=api_key, timeout=timeout)
