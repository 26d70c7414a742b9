"""Django models of the memory store: the index (rebuilt from files) and the registry (not).

`index` mirrors the Markdown files and may be dropped and rebuilt at any time.
`registry` holds what files do not: bots, their tokens, project membership, people's settings.
`vectors` caches embeddings by fact identity; it survives rebuilds.
`links` indexes the links between facts (rebuilt from files like `index`).
`upkeep` counts fact usage and keeps upkeep and synthesis proposals (not rebuilt).
`learning` is the background learner's inbox and record (exchanges, events, token usage).
`review` records what people decided about proposals (the learner's report-mode decisions).
"""

from memstore.models.idempotency import IdempotentReply
from memstore.models.index import Fact, MemoryFile
from memstore.models.learning import Exchange, LearningEvent, TokenUsage
from memstore.models.links import Link
from memstore.models.registry import Bot, BotToken, PersonSettings, ProjectMember
from memstore.models.review import ProposalReview
from memstore.models.upkeep import FactUsage, Proposal
from memstore.models.vectors import Embedding

__all__ = [
    "Bot",
    "BotToken",
    "Embedding",
    "Exchange",
    "Fact",
    "FactUsage",
    "IdempotentReply",
    "LearningEvent",
    "Link",
    "MemoryFile",
    "PersonSettings",
    "ProjectMember",
    "Proposal",
    "ProposalReview",
    "TokenUsage",
]
