"""Django models of the memory store: the index (rebuilt from files) and the registry (not).

`index` mirrors the Markdown files and may be dropped and rebuilt at any time.
`registry` holds what files do not: bots, their tokens, project membership, people's settings.
`people` is the people registry: people, bot links, room bindings, console editors.
`vectors` caches embeddings by fact identity; it survives rebuilds.
`links` indexes the links between facts (rebuilt from files like `index`).
`upkeep` counts fact usage, keeps upkeep and synthesis proposals and the last health reports
(not rebuilt).
`idempotency` keeps the first reply to a call made with an Idempotency-Key.
`learning` is the background learner's inbox and record (exchanges, events, token usage).
`lessons` records a lesson saved again once its bot's memory held it (not rebuilt).
`rerank` counts what a remote reranker cost per day (its daily cap).
`review` records what people decided about proposals (the learner's report-mode decisions).
`sources` records which memories shaped a reply: prompts and recalls served, and per
exchange what was retrieved, injected and cited (not rebuilt).
`feed` numbers the shards' history lines as the change feed, with webhook endpoints and
their delivery log (not rebuilt).
`oauth` holds MCP clients' OAuth registrations, connections, codes and tokens (not rebuilt).
"""

from memstore.models.feed import ChangeEvent, HistoryRead, WebhookDelivery, WebhookEndpoint
from memstore.models.idempotency import IdempotentReply
from memstore.models.index import Fact, MemoryFile, ScopeCount
from memstore.models.learning import Exchange, LearningEvent, TokenUsage
from memstore.models.lessons import LessonRepeat
from memstore.models.links import Link
from memstore.models.oauth import (
    OAuthClient,
    OAuthCode,
    OAuthGrant,
    OAuthRateWindow,
    OAuthToken,
)
from memstore.models.people import BotEditor, Person, PersonLink, RoomBinding
from memstore.models.registry import Bot, BotToken, PersonSettings, ProjectMember
from memstore.models.rerank import RerankUsage
from memstore.models.review import ProposalReview
from memstore.models.sources import ExchangeSource, ServedPrompt, ServedRecall
from memstore.models.upkeep import FactUsage, HealthSnapshot, Proposal
from memstore.models.vectors import Embedding

__all__ = [
    "Bot",
    "BotEditor",
    "BotToken",
    "ChangeEvent",
    "Embedding",
    "Exchange",
    "ExchangeSource",
    "Fact",
    "FactUsage",
    "HealthSnapshot",
    "HistoryRead",
    "IdempotentReply",
    "LearningEvent",
    "LessonRepeat",
    "Link",
    "MemoryFile",
    "OAuthClient",
    "OAuthCode",
    "OAuthGrant",
    "OAuthRateWindow",
    "OAuthToken",
    "Person",
    "PersonLink",
    "PersonSettings",
    "ProjectMember",
    "RerankUsage",
    "Proposal",
    "ProposalReview",
    "RoomBinding",
    "ScopeCount",
    "ServedPrompt",
    "ServedRecall",
    "TokenUsage",
    "WebhookDelivery",
    "WebhookEndpoint",
]
