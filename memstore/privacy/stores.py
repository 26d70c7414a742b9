"""Every place that can hold a fact's text, listed once: an erase cleans each of them (in this
order) and `verify-forgotten` looks in each of them, so the two cannot drift apart.

    file       memory files: fact lines of the fact's identity     (forgotten, re-synced)
    index      their index rows                                    (follow the files)
    history    shards' history lines holding it                    (tombstoned)
    feed       the change feed's events read from those lines      (tombstoned)
    embedding  cached vectors of its identity                      (deleted)
    exchange   exchanges reported for learning, their plans        (redacted)
    learning   the learner's events                                (redacted)
    proposal   upkeep and synthesis proposals                      (redacted)
    repeat     lessons saved again once stored                     (deleted)
    review     review-inbox decisions                              (redacted)
    source     which memories shaped a reply: served sections,  (the fact taken out)
               recalls, an exchange's sources (identities only)
    reply      idempotent replies                                  (redacted: a retry replays
                                                                    "[erased]", saves nothing)
    note       always-on notes and their kept versions             (redacted in place)
    other      every other file under MEMORY_ROOT                  (redacted)

`TEXT_FREE` names every other text-like column of `memstore.models` and why it never holds a
fact's text (a name, a code, a hash); a test checks that every column is in one list or the
other, so a new column that stores text has to be placed.
"""

from memstore.privacy.file_stores import Histories, MemoryFiles, Notes, OtherFiles
from memstore.privacy.place import Store
from memstore.privacy.record_stores import (
    ChangeEvents,
    Embeddings,
    Exchanges,
    HealthReports,
    IndexRows,
    LearningEvents,
    Proposals,
    Replies,
    Reviews,
    SourceRecords,
)
from memstore.privacy.repeat_store import LessonRepeats

STORES: tuple[Store, ...] = (
    MemoryFiles(),
    IndexRows(),
    Histories(),
    ChangeEvents(),
    Embeddings(),
    Exchanges(),
    LearningEvents(),
    Proposals(),
    LessonRepeats(),
    Reviews(),
    SourceRecords(),
    Replies(),
    HealthReports(),
    Notes(),
    OtherFiles(),
)
KINDS = tuple(store.kind for store in STORES)
RECORD_KINDS = (
    "exchange",
    "learning",
    "proposal",
    "repeat",
    "review",
    "source",
    "reply",
    "health",
    "note",
    "other",
)

TEXT_FREE: dict[str, str] = {
    "MemoryFile.path": "a path", "MemoryFile.scope_key": "a scope",
    "MemoryFile.shard_bot": "a slug", "MemoryFile.tier_file": "a word",
    "MemoryFile.month": "YYYY-MM", "MemoryFile.digest": "a hash",
    "MemoryFile.error": "why a file is unreadable (never its lines)",
    "Fact.fact_id": "an identity", "Fact.tier": "a word", "Fact.visibility": "a word",
    "Fact.scope_key": "a scope", "Fact.shard_bot": "a slug",
    "ScopeCount.scope_key": "a scope", "ScopeCount.visibility": "a word",
    "Link.source": "an identity", "Link.kind": "a word", "Link.target": "an identity",
    "Link.scope_key": "a scope", "Link.shard_bot": "a slug",
    "Embedding.model": "the embedder's name", "Embedding.fact_id": "an identity",
    "Exchange.bot": "a slug", "Exchange.room_id": "a room id", "Exchange.room_kind": "a word",
    "Exchange.person": "a name", "Exchange.projects": "slugs", "Exchange.message_id": "an id",
    "Exchange.reply_id": "an id", "Exchange.status": "a word", "Exchange.reason": "a code",
    "LearningEvent.key": "a key", "LearningEvent.bot": "a slug", "LearningEvent.room_id": "an id",
    "LearningEvent.room_kind": "a word", "LearningEvent.person": "a name",
    "LearningEvent.kind": "a word", "LearningEvent.reason": "a code",
    "LearningEvent.mode": "a word", "LearningEvent.scope": "a scope",
    "LearningEvent.tier": "a word", "LearningEvent.fact_id": "an identity",
    "LessonRepeat.bot": "a slug", "LessonRepeat.scope_key": "a scope",
    "LessonRepeat.fact_id": "an identity", "LessonRepeat.via": "a word",
    "Proposal.key": "a hash", "Proposal.origin": "a word", "Proposal.action": "a word",
    "Proposal.bot": "a slug", "Proposal.scope_key": "a scope", "Proposal.status": "a word",
    "ProposalReview.source": "a word", "ProposalReview.ref": "an id",
    "ProposalReview.bot": "a slug", "ProposalReview.decision": "a word",
    "ProposalReview.by": "a name",
    "HealthSnapshot.key": "a key", "HealthSnapshot.counts": "counts per scope and kind",
    "HealthSnapshot.versions": "scope versions", "HealthSnapshot.error": "why a report failed",
    "IdempotentReply.key": "the caller's key", "IdempotentReply.fingerprint": "a hash",
    "FactUsage.scope_key": "a scope", "FactUsage.fact_id": "an identity",
    "Bot.slug": "a slug", "Bot.display_name": "a name", "ProjectMember.project": "a slug",
    "BotToken.name": "a label", "BotToken.prefix": "a token prefix", "BotToken.digest": "a hash",
    "BotToken.scopes": "grant words", "ProjectMember.access": "a word",
    "PersonSettings.excluded_topics": "topic words the person chose",
    "Person.name": "a name", "RoomBinding.room_id": "an id", "RoomBinding.kind": "a word",
    "RoomBinding.person": "a name", "RoomBinding.first_bot": "a slug",
    "BotEditor.bot": "a slug",
    "OAuthClient.client_id": "an id", "OAuthClient.name": "a client's name",
    "OAuthClient.redirect_uris": "addresses", "OAuthClient.metadata": "its registration",
    "OAuthGrant.person": "a name", "OAuthGrant.resource": "an address",
    "OAuthGrant.room_id": "an id", "OAuthGrant.room_kind": "a word", "OAuthGrant.scopes": "words",
    "OAuthCode.challenge": "a hash", "OAuthCode.digest": "a hash",
    "OAuthCode.redirect_uri": "an address", "OAuthToken.digest": "a hash",
    "OAuthToken.kind": "a word", "OAuthRateWindow.key": "an endpoint and an address",
    "ServedPrompt.bot": "a slug", "ServedPrompt.room_id": "an id", "ServedPrompt.digest": "a hash",
    "ServedRecall.bot": "a slug", "ServedRecall.room_id": "an id", "ExchangeSource.role": "a word",
    "ExchangeSource.scope_key": "a scope",
    "ChangeEvent.scope_key": "a scope", "ChangeEvent.shard_bot": "a slug",
    "ChangeEvent.op": "a word", "ChangeEvent.fact_id": "an identity",
    "ChangeEvent.old_fact_id": "an identity", "ChangeEvent.file": "a path",
    "ChangeEvent.by": "a name", "ChangeEvent.via": "a word", "ChangeEvent.at": "a time",
    "HistoryRead.path": "a path", "WebhookEndpoint.owner_kind": "a word",
    "WebhookEndpoint.owner": "a slug", "WebhookEndpoint.url": "an address",
    "WebhookEndpoint.secret": "a signing key", "WebhookEndpoint.created_by": "a name",
    "WebhookDelivery.state": "a word",
    "WebhookDelivery.error": "why a delivery failed (a status, a connection error)",
}  # fmt: skip
