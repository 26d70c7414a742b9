"""The database's places for a fact's text: index rows, cached embeddings, and the stored
records that quote it (exchanges, learning events, upkeep proposals, review decisions,
idempotent replies). Each is a `Store` (`memstore.privacy.place`); `memstore.privacy.stores`
lists them.

Candidate rows are found with one Postgres regular expression per store, then confirmed (and
their owner checked against the reach) in Python. Index rows are not erased here: they mirror
the files, which the file store rewrites and re-syncs. Redacting keeps a row and replaces the
fact's words by "[erased]", so what pointed at it (a review's event, a replayed reply) still
answers, without the text.
"""

from django.db import transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast

from memstore.models import (
    Embedding,
    Exchange,
    Fact,
    IdempotentReply,
    LearningEvent,
    Proposal,
    ProposalReview,
)
from memstore.privacy.place import Erasing
from memstore.privacy.reach import Reach, owner_of_path
from memstore.privacy.target import REDACTED, Occurrence, Target

EXCHANGE_TEXT = ("message", "reply", "episode", "error")
EXCHANGE_JSON = ("recalled", "plan")
EVENT_TEXT = ("text", "detail")
PROPOSAL_TEXT = ("text", "reason", "verdict")
PROPOSAL_JSON = ("evidence", "result")


def _person_of_scope(scope_key: str) -> str | None:
    kind, _, name = scope_key.partition(":")
    return name if kind == "user" else None


def _matching(rows, target: Target, texts=(), jsons=(), extra: Q | None = None):
    """`rows` narrowed to those whose text or JSON columns match the target's words (or
    `extra`, which may use "<json column>_as_text")."""
    pattern = target.sql_pattern()
    query = extra or Q(pk__in=[])
    for name in texts:
        query |= Q(**{f"{name}__iregex": pattern})
    casts = {f"{name}_as_text": Cast(name, TextField()) for name in jsons}
    for name in casts:
        query |= Q(**{f"{name}__iregex": pattern})
    return rows.annotate(**casts).filter(query) if casts else rows.filter(query)


class IndexRows:
    """`Fact` rows (the index of the memory files): listed, never written here."""

    kind = "index"
    holds = ("Fact.text", "Fact.line", "Fact.meta")

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        shards = {(str(s.scope), s.bot) for s in reach.shards}
        rows = Fact.objects.filter(fact_id__in=target.ids).select_related("file")
        return [
            Occurrence("index", row.file.path, f"fact {row.fact_id}")
            for row in rows
            if (row.scope_key, row.shard_bot) in shards
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        return 0  # the file store's forget re-synced them


class Embeddings:
    """Cached vectors, keyed by the text's identity: deleted whoever's copy they came from
    (a cache; recomputed if another copy is still searched)."""

    kind = "embedding"
    holds = ("Embedding.vector",)

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        rows = Embedding.objects.filter(fact_id__in=target.ids)
        return [
            Occurrence("embedding", f"{m}:{f}") for m, f in rows.values_list("model", "fact_id")
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        deleted, _ = Embedding.objects.filter(fact_id__in=target.ids).delete()
        return deleted


class Exchanges:
    """The exchanges reported for learning: message, reply, episode, error, recalled, plan."""

    kind = "exchange"
    holds = tuple(f"Exchange.{n}" for n in (*EXCHANGE_TEXT, *EXCHANGE_JSON))

    def rows(self, target: Target, reach: Reach) -> list[Exchange]:
        named = Q(*[Q(plan_as_text__contains=i) for i in target.ids], _connector=Q.OR)
        rows = _matching(Exchange.objects.all(), target, EXCHANGE_TEXT, EXCHANGE_JSON, named)
        return [
            row
            for row in rows
            if reach.owns(bot=row.bot, person=row.person or None) and self.holds_in(row, target)
        ]

    @staticmethod
    def holds_in(row: Exchange, target: Target) -> bool:
        return any(target.holds(getattr(row, n)) for n in EXCHANGE_TEXT) or any(
            target.json_holds(getattr(row, n)) for n in EXCHANGE_JSON
        )

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        return [
            Occurrence("exchange", f"exchange {r.pk} ({r.bot} in {r.room_id})")
            for r in self.rows(target, reach)
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        found = self.rows(target, reach)
        with transaction.atomic():
            for row in found:
                for name in EXCHANGE_TEXT:
                    if value := getattr(row, name):
                        setattr(row, name, target.redact(value))
                for name in EXCHANGE_JSON:
                    setattr(row, name, target.json_redact(getattr(row, name)))
                row.save(update_fields=[*EXCHANGE_TEXT, *EXCHANGE_JSON])
        return len(found)


class LearningEvents:
    """What the learner did with each exchange (an event about the fact by id counts until
    its text is redacted)."""

    kind = "learning"
    holds = tuple(f"LearningEvent.{n}" for n in EVENT_TEXT)

    def rows(self, target: Target, reach: Reach) -> list[LearningEvent]:
        named = Q(fact_id__in=target.ids)
        rows = _matching(LearningEvent.objects.all(), target, EVENT_TEXT, extra=named)
        return [
            row
            for row in rows
            if reach.owns(bot=row.bot, person=row.person or None) and self.holds_in(row, target)
        ]

    @staticmethod
    def holds_in(row: LearningEvent, target: Target) -> bool:
        if row.fact_id in target.ids and row.text not in ("", REDACTED):
            return True
        return any(target.holds(getattr(row, name)) for name in EVENT_TEXT)

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        return [
            Occurrence("learning", f"learning event {r.pk} ({r.bot}, {r.kind})")
            for r in self.rows(target, reach)
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        found = self.rows(target, reach)
        with transaction.atomic():
            for row in found:
                row.text = REDACTED if row.fact_id in target.ids else target.redact(row.text)
                row.detail = target.redact(row.detail)
                row.save(update_fields=list(EVENT_TEXT))
        return len(found)


class Proposals:
    """Upkeep and synthesis proposals: the facts they cite (evidence), what they write, why."""

    kind = "proposal"
    holds = tuple(f"Proposal.{n}" for n in (*PROPOSAL_TEXT, *PROPOSAL_JSON))

    def rows(self, target: Target, reach: Reach) -> list[Proposal]:
        rows = _matching(Proposal.objects.all(), target, PROPOSAL_TEXT, PROPOSAL_JSON)
        return [
            row
            for row in rows
            if reach.owns(bot=row.bot, person=_person_of_scope(row.scope_key))
            and (
                any(target.holds(getattr(row, n)) for n in PROPOSAL_TEXT)
                or any(target.json_holds(getattr(row, n)) for n in PROPOSAL_JSON)
            )
        ]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        return [
            Occurrence("proposal", f"upkeep proposal {r.pk} ({r.bot}, {r.action})")
            for r in self.rows(target, reach)
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        found = self.rows(target, reach)
        with transaction.atomic():
            for row in found:
                for name in PROPOSAL_TEXT:
                    setattr(row, name, target.redact(getattr(row, name)))
                for name in PROPOSAL_JSON:
                    setattr(row, name, target.json_redact(getattr(row, name)))
                row.save(update_fields=[*PROPOSAL_TEXT, *PROPOSAL_JSON])
        return len(found)


class Reviews:
    """What people decided in the review inbox: the text written when they accepted. A
    learner decision is about the person of the event it decided."""

    kind = "review"
    holds = ("ProposalReview.text",)

    def rows(self, target: Target, reach: Reach) -> list[ProposalReview]:
        rows = [r for r in _matching(ProposalReview.objects.all(), target, ("text",))]
        refs = [int(r.ref) for r in rows if r.source == "learner" and r.ref.isdigit()]
        people = dict(LearningEvent.objects.filter(pk__in=refs).values_list("pk", "person"))
        return [
            row
            for row in rows
            if target.holds(row.text)
            and reach.owns(bot=row.bot, person=_review_person(row, people))
        ]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        return [
            Occurrence("review", f"review decision {r.pk} ({r.bot}, {r.source}:{r.ref})")
            for r in self.rows(target, reach)
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        found = self.rows(target, reach)
        with transaction.atomic():
            for row in found:
                row.text = target.redact(row.text)
                row.save(update_fields=["text"])
        return len(found)


def _review_person(row: ProposalReview, people: dict[int, str]) -> str | None:
    if row.source != "learner" or not row.ref.isdigit():
        return None
    return people.get(int(row.ref)) or None


class Replies:
    """Replies kept for `Idempotency-Key` retries: the fact saved, as the API answered it. A
    reply is about the person whose memory holds the fact it names."""

    kind = "reply"
    holds = ("IdempotentReply.body",)

    def rows(self, target: Target, reach: Reach) -> list[IdempotentReply]:
        rows = _matching(IdempotentReply.objects.select_related("bot"), target, (), ("body",))
        return [
            row
            for row in rows
            if reach.owns(bot=row.bot.slug, person=_reply_person(row.body))
            and target.json_holds(row.body)
        ]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        return [
            Occurrence("reply", f"idempotent reply {r.pk} ({r.bot.slug})")
            for r in self.rows(target, reach)
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        # Kept, redacted: a retry with the same key replays "[erased]" instead of saving the
        # fact again.
        found = self.rows(target, reach)
        with transaction.atomic():
            for row in found:
                row.body = target.json_redact(row.body)
                row.save(update_fields=["body"])
        return len(found)


def _reply_person(body: object) -> str | None:
    if not isinstance(body, dict):
        return None
    if body.get("scope") == "user" and isinstance(body.get("scope_name"), str):
        return body["scope_name"]
    return owner_of_path(str(body.get("file", "")))[1]
