"""The review inbox: proposals waiting for a person (the learner's report-mode decisions and
what it held for review in any mode, synthesis' proposals later), and accepting, editing then
accepting, or rejecting them.

The gate's held saves (`memstore.store.held`) are a source too. A proposal source is an object
with `pending`, `count` and `decide`; `SOURCES` names them, so a
new source (synthesis) adds itself there and the console's inbox takes it as it is. Accepting a
learner proposal writes exactly what write mode would have written (the same shard, tier, date
and `src=`/`by=`/`via=learner` provenance) through the ordinary services, so the rules every
front door keeps hold here too; the history records the person who accepted it. Every decision
is kept (`ProposalReview`), and a decided proposal leaves the inbox.

Does not: run the learner, or decide wording (the console's presenters do).
"""

from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from django.db.models import CharField, Exists, OuterRef, Q
from django.db.models.functions import Cast
from django.utils import timezone

from memstore.console.viewer import Viewer
from memstore.errors import EditConflict, FactNotFound, InvalidFact
from memstore.facts.paths import Scope
from memstore.learning.activity import events_visible
from memstore.learning.apply import VIA, provenance
from memstore.models import LearningEvent, ProposalReview
from memstore.models import Proposal as UpkeepProposal
from memstore.prompt.lessons import ORIGIN as LESSONS_ORIGIN
from memstore.prompt.lessons import lessons_apply
from memstore.rules.instructions import instruction_kind
from memstore.rules.withheld import instruction_keep
from memstore.store.held import ORIGIN as HELD_ORIGIN
from memstore.store.services import fact_forget, fact_remember
from memstore.upkeep.proposals import proposal_decide as upkeep_proposal_decide

Decision = Literal["accepted", "rejected"]


@dataclass(frozen=True, slots=True)
class Proposal:
    """A change proposed for a bot's memory, waiting for a person."""

    source: str  # "learner" (later "synthesis")
    ref: str  # the source's own id
    bot: str
    op: str  # save | remove
    scope: str  # "kind:name"
    tier: str
    text: str
    fact_id: str
    at: datetime
    room_id: str
    exchange_id: int | None  # where it came from, for the provenance page
    why: str = ""  # why it was held for a person rather than done ("" for report mode's)

    @property
    def key(self) -> str:
        """The proposal as one form value: "source:ref"."""
        return f"{self.source}:{self.ref}"


class ProposalSource(Protocol):
    """What the inbox needs from a source of proposals."""

    def pending(self, *, bot: str, viewer: Viewer, limit: int) -> list[Proposal]: ...

    def count(self, *, bot: str, viewer: Viewer) -> int: ...

    def decide(
        self, *, bot: str, viewer: Viewer, ref: str, decision: Decision, text: str | None
    ) -> None: ...


class LearnerProposals:
    """The learner's decisions not yet decided: report mode's `would_save` and `would_remove`,
    and, in any mode, what it held for a person (`held_save`: instruction-shaped text;
    `held_remove`: a remove of a fact saved on purpose)."""

    name = "learner"
    kinds = ("would_save", "would_remove")
    held = ("held_save", "held_remove")
    removals = ("would_remove", "held_remove")

    def _rows(self, bot: str, viewer: Viewer):
        decided = ProposalReview.objects.filter(
            source=self.name, ref=Cast(OuterRef("pk"), CharField())
        )
        rows = LearningEvent.objects.filter(
            Q(kind__in=self.kinds, mode="report") | Q(kind__in=self.held), bot=bot
        )
        rows = events_visible(rows, None if viewer.staff else viewer.person)
        return rows.filter(~Exists(decided))

    def pending(self, *, bot: str, viewer: Viewer, limit: int) -> list[Proposal]:
        """The oldest undecided proposals first (the order they were made)."""
        rows = self._rows(bot, viewer).order_by("at", "id")[:limit]
        return [self._proposal(row) for row in rows]

    def count(self, *, bot: str, viewer: Viewer) -> int:
        """How many wait."""
        return self._rows(bot, viewer).count()

    def decide(
        self, *, bot: str, viewer: Viewer, ref: str, decision: Decision, text: str | None
    ) -> None:
        """Accept (write what write mode would have) or reject one proposal."""
        row = self._rows(bot, viewer).select_related("exchange").filter(pk=_int(ref)).first()
        if row is None:
            raise FactNotFound("That proposal is not waiting for review (decided already?).")
        written = ""
        if decision == "accepted":
            written = self._apply(row, viewer, text)
        ProposalReview.objects.create(
            source=self.name, ref=ref, bot=bot, decision=decision, text=written, by=viewer.person
        )

    def _apply(self, row: LearningEvent, viewer: Viewer, text: str | None) -> str:
        shard = Scope.parse(row.scope).shard(row.bot)
        if row.kind in self.removals:
            with suppress(FactNotFound):  # already gone: what was proposed holds
                fact_forget(shards=[shard], fact_id=row.fact_id, by=viewer.person, via="console")
            return row.text
        exchange = row.exchange
        if instruction_kind(text or row.text):
            # Held as an instruction, accepted by a person: the gate lets this text through.
            instruction_keep(text=text or row.text, bot=row.bot, by=viewer.person)
        stored = fact_remember(
            shard=shard,
            text=text or row.text,
            tier=row.tier or "log",  # type: ignore[arg-type]
            day=timezone.localdate(exchange.created_at),
            meta={"src": provenance(exchange.room_id, exchange.message_id), "by": row.bot}
            | {"via": VIA},
            person=exchange.person or None,
            by=viewer.person,
            via="console",
        )
        return stored.text

    def _proposal(self, row: LearningEvent) -> Proposal:
        return Proposal(
            source=self.name,
            ref=str(row.pk),
            bot=row.bot,
            op="remove" if row.kind in self.removals else "save",
            scope=row.scope,
            tier=row.tier,
            text=row.text,
            fact_id=row.fact_id,
            at=row.at,
            room_id=row.room_id,
            exchange_id=row.exchange_id,
            why=row.detail if row.kind in self.held else "",
        )


class LessonsProposals:
    """Lessons for agents (`memstore.prompt.lessons`): a bot's About me note with its recurring
    lessons added, waiting for one of its editors; the same proposals its Proposals page lists."""

    name = "lessons"

    def _rows(self, bot: str):
        return UpkeepProposal.objects.filter(
            bot=bot, origin=LESSONS_ORIGIN, status=UpkeepProposal.PROPOSED
        )

    def pending(self, *, bot: str, viewer: Viewer, limit: int) -> list[Proposal]:
        """The open ones, oldest first."""
        return [
            Proposal(
                source=self.name,
                ref=str(row.pk),
                bot=row.bot,
                op="note",
                scope=row.scope_key,
                tier="",
                text=row.text,
                fact_id="",
                at=row.created_at,
                room_id="",
                exchange_id=None,
                why=row.reason,
            )
            for row in self._rows(bot).order_by("created_at", "id")[:limit]
        ]

    def count(self, *, bot: str, viewer: Viewer) -> int:
        """How many wait."""
        return self._rows(bot).count()

    def decide(
        self, *, bot: str, viewer: Viewer, ref: str, decision: Decision, text: str | None
    ) -> None:
        """Accept (save the note, unless it changed since) or reject one."""
        row = self._rows(bot).filter(pk=_int(ref)).first()
        if row is None:
            raise FactNotFound("That proposal is not waiting for review (decided already?).")
        if decision == "rejected":
            upkeep_proposal_decide(proposal_id=row.pk, accept=False, by=viewer.person, bots=[bot])
            return
        applied = lessons_apply(proposal=row)
        if applied.status != UpkeepProposal.APPLIED:
            raise EditConflict(applied.result.get("error", "Not applied."))


class HeldSaves:
    """Saves the gate held (`memstore.store.held`: instruction-shaped text that came in through
    the API, MCP, the console, an import, summarize), in scopes this person may see; accepting
    one writes it as it came in (`memstore.upkeep.proposals`), with the accepted text."""

    name = "held"

    def _rows(self, bot: str, viewer: Viewer) -> list[UpkeepProposal]:
        rows = UpkeepProposal.objects.filter(
            bot=bot, origin=HELD_ORIGIN, status=UpkeepProposal.PROPOSED
        ).order_by("created_at", "id")
        return [row for row in rows if viewer.may_see(Scope.parse(row.scope_key))]

    def pending(self, *, bot: str, viewer: Viewer, limit: int) -> list[Proposal]:
        """The oldest first."""
        return [
            Proposal(
                source=self.name,
                ref=str(row.pk),
                bot=row.bot,
                op="save",
                scope=row.scope_key,
                tier=row.result.get("save", {}).get("tier", "log"),
                text=row.text,
                fact_id="",
                at=row.created_at,
                room_id="",
                exchange_id=None,
                why=row.reason,
            )
            for row in self._rows(bot, viewer)[:limit]
        ]

    def count(self, *, bot: str, viewer: Viewer) -> int:
        """How many wait."""
        return len(self._rows(bot, viewer))

    def decide(
        self, *, bot: str, viewer: Viewer, ref: str, decision: Decision, text: str | None
    ) -> None:
        """Accept (write it, edited if `text`) or reject one."""
        row = next((r for r in self._rows(bot, viewer) if str(r.pk) == ref), None)
        if row is None:
            raise FactNotFound("That proposal is not waiting for review (decided already?).")
        if text and decision == "accepted":
            UpkeepProposal.objects.filter(pk=row.pk).update(text=text)
        done = upkeep_proposal_decide(
            proposal_id=row.pk, accept=decision == "accepted", by=viewer.person, bots=[bot]
        )
        if done.status == UpkeepProposal.FAILED:
            raise InvalidFact(done.result.get("error", "Not saved."))


SOURCES: dict[str, ProposalSource] = {
    "learner": LearnerProposals(),
    "lessons": LessonsProposals(),
    "held": HeldSaves(),
}


def _int(ref: str) -> int:
    if not ref.isdigit():
        raise FactNotFound("No such proposal.")
    return int(ref)


def review_inbox(*, bot: str, viewer: Viewer, limit: int = 100) -> list[Proposal]:
    """Every source's waiting proposals for a bot, oldest first."""
    found = [p for s in SOURCES.values() for p in s.pending(bot=bot, viewer=viewer, limit=limit)]
    # A stable sort on the time alone: proposals made at the same moment keep their source's own
    # order (oldest id first), which sorting by the key's text ("learner:10" < "learner:9") broke.
    return sorted(found, key=lambda p: p.at)[:limit]


def review_count(*, bot: str, viewer: Viewer) -> int:
    """How many proposals wait for this bot (the navigation's count)."""
    return sum(s.count(bot=bot, viewer=viewer) for s in SOURCES.values())


def proposals_decide(
    *, bot: str, viewer: Viewer, keys: list[str], decision: Decision, text: str | None = None
) -> int:
    """Accept or reject proposals ("source:ref" each); `text` replaces the text of a single
    accepted save (edit then accept). Returns how many were decided; a refusal (a secret, an
    excluded topic) stops at that proposal and is raised, the ones before it stay decided."""
    if text is not None and len(keys) != 1:
        raise InvalidFact("Edit one proposal at a time.")
    viewer.check_editor(bot)
    done = 0
    for key in keys:
        source, _, ref = key.partition(":")
        if source not in SOURCES:
            raise FactNotFound("No such proposal.")
        SOURCES[source].decide(bot=bot, viewer=viewer, ref=ref, decision=decision, text=text)
        done += 1
    return done
