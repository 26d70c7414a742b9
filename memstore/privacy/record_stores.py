"""The database's places for a fact's text: index rows, cached embeddings, and the stored
records that quote it (exchanges, learning events, upkeep proposals, review decisions,
idempotent replies, kept health reports, the change feed's events), and the records that name it
by identity (which memories shaped a reply). Each is a `Store` (`memstore.privacy.place`); `memstore.privacy.stores`
lists them.

Candidate rows are found with one Postgres regular expression per store, then confirmed (and
their owner checked against the reach) in Python. Index rows are not erased here: they mirror
the files, which the file store rewrites and re-syncs. Redacting keeps a row and replaces the
fact's words by "[erased]", so what pointed at it (a review's event, a replayed reply) still
answers, without the text.
"""

from django.db import connection, models, transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast

from memstore.facts.paths import person_of_scope
from memstore.index.events import FEED_LOCK
from memstore.models import (
    ChangeEvent,
    Embedding,
    Exchange,
    ExchangeSource,
    Fact,
    HealthSnapshot,
    IdempotentReply,
    LearningEvent,
    Proposal,
    ProposalReview,
    ServedPrompt,
    ServedRecall,
)
from memstore.privacy.place import Erasing
from memstore.privacy.reach import Reach, owner_of_path
from memstore.privacy.target import REDACTED, Occurrence, Target


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
        named = Q(fact_id__in=target.ids) | Q(text__iregex=target.sql_pattern())
        rows = Fact.objects.filter(named).select_related("file")
        return [
            Occurrence("index", row.file.path, f"fact {row.fact_id}" + _unlinked(row, target))
            for row in rows
            if (row.scope_key, row.shard_bot) in shards
            and (row.fact_id in target.ids or target.holds(row.text))
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        return 0  # the file store's forget re-synced them


def _unlinked(row: Fact, target: Target) -> str:
    return "" if row.fact_id in target.ids else ": holds its text, not linked to it"


class ChangeEvents:
    """The change feed's events (`memstore.index.events`): their lines become the history's
    tombstone, as the history lines they were read from do (a later webhook delivery or feed
    read of them then carries no text)."""

    kind = "feed"
    holds = ("ChangeEvent.line", "ChangeEvent.old_line")

    def rows(self, target: Target, reach: Reach, erasing: Erasing | None = None) -> list:
        shards = {(str(s.scope), s.bot) for s in reach.shards}
        copies = {
            (str(c.shard.scope), c.shard.bot, c.fact_id)
            for c in (erasing.derived if erasing else ())
        }
        ids = target.ids | {fact_id for _, _, fact_id in copies}
        rows = ChangeEvent.objects.filter(Q(fact_id__in=ids) | Q(old_fact_id__in=ids))
        return [
            row
            for row in rows
            if target.change_holds(row)  # type: ignore[arg-type]  (the same fields as a Change)
            and (
                (row.scope_key, row.shard_bot) in shards
                or any(
                    (row.scope_key, row.shard_bot, i) in copies
                    for i in (row.fact_id, row.old_fact_id)
                )
            )
        ]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        return [Occurrence("feed", f"event {row.id}", row.op) for row in self.rows(target, reach)]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        with transaction.atomic(), connection.cursor() as cursor:
            # The feed's lock: an ingest reading the history before it was tombstoned commits
            # first, so its rows are redacted here too.
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [FEED_LOCK])
            rows = self.rows(target, reach, erasing)
            for row in rows:
                if row.fact_id in target.ids or row.fact_id in {c.fact_id for c in erasing.derived}:
                    row.line = erasing.mark
                if row.old_fact_id and row.old_fact_id in target.ids:
                    row.old_line = erasing.mark
            ChangeEvent.objects.bulk_update(rows, ["line", "old_line"])
        return len(rows)


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


class RedactedRows:
    """A model whose rows quote text in `texts` (text columns) and `jsons` (JSON columns):
    a row within reach (`owner`) that holds the fact is listed, and redacted in place."""

    kind = ""
    model: type[models.Model]
    texts: tuple[str, ...] = ()
    jsons: tuple[str, ...] = ()
    saves_also: tuple[str, ...] = ()  # other columns `redact` may change

    @property
    def holds(self) -> tuple[str, ...]:
        return tuple(f"{self.model.__name__}.{n}" for n in (*self.texts, *self.jsons))

    def queryset(self):
        return self.model.objects.all()

    def named(self, target: Target) -> Q | None:
        """Rows that name the fact by id rather than quote it (none by default)."""
        return None

    def owners(self, rows: list) -> list[tuple[str | None, str | None]]:
        """(bot, person) each row belongs to, for `Reach.owns`."""
        raise NotImplementedError

    def where(self, row) -> str:
        raise NotImplementedError

    def holds_in(self, row, target: Target) -> bool:
        return any(target.holds(getattr(row, n)) for n in self.texts) or any(
            target.json_holds(getattr(row, n)) for n in self.jsons
        )

    def redact(self, row, target: Target) -> None:
        for name in self.texts:
            if value := getattr(row, name):
                setattr(row, name, target.redact(value))
        for name in self.jsons:
            setattr(row, name, target.json_redact(getattr(row, name)))

    def rows(self, target: Target, reach: Reach) -> list:
        rows = list(_matching(self.queryset(), target, self.texts, self.jsons, self.named(target)))
        return [
            row
            for row, (bot, person) in zip(rows, self.owners(rows), strict=True)
            if reach.owns(bot=bot, person=person) and self.holds_in(row, target)
        ]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        return [Occurrence(self.kind, self.where(row)) for row in self.rows(target, reach)]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        found = self.rows(target, reach)
        with transaction.atomic():
            for row in found:
                self.redact(row, target)
                row.save(update_fields=[*self.texts, *self.jsons, *self.saves_also])
        return len(found)


class Exchanges(RedactedRows):
    """The exchanges reported for learning: message, reply, episode, error, recalled, plan."""

    kind, model = "exchange", Exchange
    texts, jsons = ("message", "reply", "episode", "error"), ("recalled", "plan")

    def named(self, target: Target) -> Q:
        return Q(*[Q(plan_as_text__contains=i) for i in target.ids], _connector=Q.OR)

    def owners(self, rows: list[Exchange]) -> list[tuple[str | None, str | None]]:
        return [(row.bot, row.person or None) for row in rows]

    def where(self, row: Exchange) -> str:
        return f"exchange {row.pk} ({row.bot} in {row.room_id})"


class LearningEvents(RedactedRows):
    """What the learner did with each exchange (an event about the fact by id counts until
    its text is redacted, and then says only "[erased]")."""

    kind, model, texts = "learning", LearningEvent, ("text", "detail")

    def named(self, target: Target) -> Q:
        return Q(fact_id__in=target.ids)

    def owners(self, rows: list[LearningEvent]) -> list[tuple[str | None, str | None]]:
        return [(row.bot, row.person or None) for row in rows]

    def where(self, row: LearningEvent) -> str:
        return f"learning event {row.pk} ({row.bot}, {row.kind})"

    def holds_in(self, row: LearningEvent, target: Target) -> bool:
        if row.fact_id in target.ids and row.text not in ("", REDACTED):
            return True
        return super().holds_in(row, target)

    def redact(self, row: LearningEvent, target: Target) -> None:
        super().redact(row, target)
        if row.fact_id in target.ids:
            row.text = REDACTED


class Proposals(RedactedRows):
    """Upkeep, synthesis and lessons proposals: the facts they cite (evidence), what they
    write, why. What a proposal would write from a fact it cites is that fact's too: its
    text is erased whole, and an open one is closed (accepting it would write it again)."""

    kind, model = "proposal", Proposal
    texts, jsons = ("text", "reason", "verdict"), ("evidence", "result")
    saves_also = ("status",)

    def named(self, target: Target) -> Q:
        return Q(*[Q(evidence__contains=[{"id": i}]) for i in target.ids], _connector=Q.OR)

    def holds_in(self, row: Proposal, target: Target) -> bool:
        if _cites(row, target) and (row.text not in ("", REDACTED) or row.status == "proposed"):
            return True
        return super().holds_in(row, target)

    def redact(self, row: Proposal, target: Target) -> None:
        super().redact(row, target)
        if _cites(row, target):
            row.text = REDACTED if row.text else row.text
            if row.status == Proposal.PROPOSED:
                row.status = Proposal.FAILED
                row.result = {"error": "A fact it cites was erased."}

    def owners(self, rows: list[Proposal]) -> list[tuple[str | None, str | None]]:
        return [(row.bot, person_of_scope(row.scope_key)) for row in rows]

    def where(self, row: Proposal) -> str:
        return f"upkeep proposal {row.pk} ({row.bot}, {row.action})"


def _cites(row: Proposal, target: Target) -> bool:
    evidence = row.evidence if isinstance(row.evidence, list) else []
    return any(isinstance(item, dict) and item.get("id") in target.ids for item in evidence)


class Reviews(RedactedRows):
    """What people decided in the review inbox: the text written when they accepted. A
    learner decision is about the person of the event it decided."""

    kind, model, texts = "review", ProposalReview, ("text",)

    def owners(self, rows: list[ProposalReview]) -> list[tuple[str | None, str | None]]:
        def event(row: ProposalReview) -> int | None:
            return int(row.ref) if row.source == "learner" and row.ref.isdigit() else None

        events = [e for e in map(event, rows) if e is not None]
        people = dict(LearningEvent.objects.filter(pk__in=events).values_list("pk", "person"))
        return [(row.bot, people.get(event(row)) or None) for row in rows]

    def where(self, row: ProposalReview) -> str:
        return f"review decision {row.pk} ({row.bot}, {row.source}:{row.ref})"


class Replies(RedactedRows):
    """Replies kept for `Idempotency-Key` retries: the fact saved, as the API answered it. A
    reply is about the person whose memory holds the fact it names. Kept, redacted: a retry
    with the same key replays "[erased]" instead of saving the fact again."""

    kind, model, jsons = "reply", IdempotentReply, ("body",)

    def queryset(self):
        return IdempotentReply.objects.select_related("bot")

    def owners(self, rows: list[IdempotentReply]) -> list[tuple[str | None, str | None]]:
        return [(row.bot.slug, _reply_person(row.body)) for row in rows]

    def where(self, row: IdempotentReply) -> str:
        return f"idempotent reply {row.pk} ({row.bot.slug})"


class HealthReports(RedactedRows):
    """The last finished health reports kept for the pages (their findings quote facts). A
    report is a cache of what the files held: any erasure of a fact redacts the reports that
    quote it, whoever's copy they quote (the next report is made from the files again)."""

    kind, model, jsons = "health", HealthSnapshot, ("findings",)

    def owners(self, rows: list[HealthSnapshot]) -> list[tuple[str | None, str | None]]:
        return [(row.key.removeprefix("bot:") if row.key.startswith("bot:") else None, None)
                for row in rows]  # fmt: skip

    def where(self, row: HealthSnapshot) -> str:
        return f"health report {row.key}"

    def rows(self, target: Target, reach: Reach) -> list:
        found = _matching(self.queryset(), target, self.texts, self.jsons)
        return [row for row in found if self.holds_in(row, target)]


def _reply_person(body: object) -> str | None:
    body = body if isinstance(body, dict) else {}
    if body.get("scope") == "user" and isinstance(body.get("scope_name"), str):
        return body["scope_name"]
    return owner_of_path(str(body.get("file", "")))[1]


class SourceRecords:
    """Which memories shaped a reply (`memstore.models.sources`): identities, never text. Like
    the cached vectors, an erase takes the fact's identities out of all of them, whoever's copy
    was served (the records of a reply would otherwise still name what was erased)."""

    kind = "source"
    holds = ("ExchangeSource.fact_id", "ServedPrompt.facts", "ServedRecall.facts")
    # "scope fact_id" entries whose identity is one of the target's
    _NAMED = "EXISTS (SELECT 1 FROM unnest(facts) x WHERE right(x, 16) = ANY(%s::text[]))"

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        ids = sorted(target.ids)
        found = [
            Occurrence("source", f"exchange {exchange} ({role})")
            for exchange, role in ExchangeSource.objects.filter(fact_id__in=ids).values_list(
                "exchange_id", "role"
            )
        ]
        for model, name in ((ServedPrompt, "served prompt"), (ServedRecall, "served recall")):
            rows = model.objects.extra(where=[self._NAMED], params=[ids])  # noqa: S610
            found += [
                Occurrence("source", f"{name} {pk} ({bot} in {room})")
                for pk, bot, room in rows.values_list("pk", "bot", "room_id")
            ]
        return found

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        ids = sorted(target.ids)
        erased, _ = ExchangeSource.objects.filter(fact_id__in=ids).delete()
        with connection.cursor() as cursor:
            for model in (ServedPrompt, ServedRecall):
                cursor.execute(
                    f"UPDATE {model._meta.db_table} SET facts = ARRAY("
                    "SELECT x FROM unnest(facts) x WHERE right(x, 16) <> ALL(%s::text[])"
                    f") WHERE {self._NAMED}",
                    [ids, ids],
                )
                erased += cursor.rowcount
        return erased
