"""The learner's settings as one value, read from Django settings at the moment they are needed
(so a test or an operator changing them takes effect without a restart of the code path)."""

from dataclasses import dataclass
from typing import Literal

from django.conf import settings

from memstore.llm.client import ModelClient, client_for

Mode = Literal["off", "report", "write"]
EXTRACTION_MAX_TOKENS = 600
EPISODE_MAX_TOKENS = 160


@dataclass(frozen=True, slots=True)
class LearnerConfig:
    """Mode (off until a model is configured), model endpoint, budget and retry policy."""

    mode: Mode
    base_url: str
    model: str
    api_key: str
    daily_tokens: int
    timeout: float
    retry_attempts: int
    retry_wait: float
    episode_every: int  # every Nth eligible exchange of a room gets an episode call
    episode_chars: int  # the episode call's quoted turns, whole, within this total size
    small_talk_chars: int
    small_talk: frozenset[str]
    max_age_days: int = 14  # an exchange queued longer than this is not learned

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


def learner_config() -> LearnerConfig:
    """The current settings; mode is "off" while no model is configured."""
    base_url = settings.LEARNING_BASE_URL
    model = settings.LEARNING_MODEL
    mode = settings.LEARNING_MODE
    return LearnerConfig(
        mode=mode if base_url and model else "off",
        base_url=base_url,
        model=model,
        api_key=settings.LEARNING_API_KEY,
        daily_tokens=int(settings.LEARNING_DAILY_TOKENS),
        timeout=float(settings.LEARNING_TIMEOUT),
        retry_attempts=max(1, int(settings.LEARNING_RETRY_ATTEMPTS)),
        retry_wait=float(settings.LEARNING_RETRY_WAIT),
        episode_every=max(1, int(settings.LEARNING_EPISODE_EVERY)),
        max_age_days=max(1, int(settings.LEARNING_MAX_AGE_DAYS)),
        episode_chars=int(settings.LEARNING_EPISODE_CHARS),
        small_talk_chars=int(settings.LEARNING_SMALL_TALK_CHARS),
        small_talk=frozenset(p.lower() for p in settings.LEARNING_SMALL_TALK),
    )


def model_client(config: LearnerConfig) -> ModelClient | None:
    """The production model client for this configuration, or None when none is configured."""
    if not config.configured:
        return None
    return client_for(
        base_url=config.base_url,
        model=config.model,
        api_key=config.api_key,
        timeout=config.timeout,
    )
