"""Writing one exchange's plan, and the run that records it: saves, removes, holds and
refusals, each recorded as an event for the console (`LearnRun.event`), stored with the
exchange's progress in one statement.

Write mode saves and removes through `memstore.store.services` (a `remove:` through
`memstore.learning.retire`, which takes only what the learner made); report mode only records
what it would do. A hold (`held_save`, `held_remove`) is recorded in every mode and waits in the
review inbox (`memstore.console.review`) for a person. Routing is decided by the run's target
shard, never by the model. Does not: call a model or decide a plan (`memstore.learning.plan`).
"""

from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import date

from django.utils import timezone

from memstore.errors import FactNotFound, FactProtected, MemstoreError
from memstore.facts.markdown import make_fact
from memstore.facts.paths import Shard, memory_root
from memstore.index.sync import sync_skipped
from memstore.learning.plan import PROTECTED_DETAIL
from memstore.learning.retire import learned_forget
from memstore.learning.room import RoomPeople
from memstore.learning.store import progress_store
from memstore.llm.config import LearnerConfig
from memstore.models import Exchange, LearningEvent
from memstore.rooms.access import Context
from memstore.rules.content import RULE_ERRORS
from memstore.rules.controls import Controls
from memstore.rules.failures import failure_record, failure_room
from memstore.rules.withheld import Withholding
from memstore.store.services import fact_remember

VIA = "learner"


@dataclass
class LearnRun:
    """One run of one exchange: where it may write, and the events it has recorded."""

    exchange: Exchange
    config: LearnerConfig
    ctx: Context
    target: Shard
    mine: list[Shard]
    person: Controls  # the exchange's person's (defaults when there is none)
    withholding: Withholding | None = None  # what the known facts shown to the model withhold
    people: RoomPeople = field(default_factory=RoomPeople)  # everyone in the room, this one too
    events: list[LearningEvent] = field(default_factory=list)
    unsaved: dict = field(default_factory=dict)  # exchange fields to store with the next save
    uncharged: int = 0  # tokens spent and not yet added to the day's budget
    synced: bool = False  # a save of this run has synced the target's scope (see `save_apply`)

    @property
    def day(self) -> date:
        return timezone.localdate(self.exchange.created_at)

    @property
    def meta(self) -> dict[str, str]:
        return {
            "src": provenance(self.exchange.room_id, self.exchange.message_id),
            "by": self.exchange.bot,
            "via": VIA,
        }

    def event(self, key: str, kind: str, **fields) -> None:
        ex = self.exchange
        rule = RULE_ERRORS.get(fields.get("reason", "")) if kind == "refused" else None
        if rule is not None and self.config.mode == "write":  # the service records its own
            error = rule(fields.get("detail", ""))
            with failure_room(ex.room_id):
                failure_record(root=memory_root(), bot=ex.bot, op="learn", error=error, via=VIA)
        self.events.append(
            LearningEvent(
                exchange=ex,
                key=key,
                bot=ex.bot,
                room_id=ex.room_id,
                room_kind=ex.room_kind,
                person=ex.person,
                kind=kind,
                mode=self.config.mode,
                **fields,
            )
        )

    def spent(self, tokens: int, **fields) -> None:
        """Note a model call's tokens and what it produced, to store with the next save."""
        self.uncharged += tokens
        self.unsaved = {**self.unsaved, **fields}

    def save(self, **fields) -> None:
        """Store progress, the events so far and the token charge, in one statement."""
        progress_store(
            exchange_id=self.exchange.pk,
            fields={**self.unsaved, **fields},
            events=self.events,
            tokens=self.uncharged,
            day=timezone.localdate(),
        )
        self.events.clear()
        self.unsaved, self.uncharged = {}, 0

    def finish(self, status: str, reason: str = "") -> str:
        self.save(status=status, reason=reason, finished_at=timezone.now())
        return status

    def skip(self, reason: str, detail: str) -> str:
        self.event("skipped", "skipped", reason=reason, detail=detail)
        return self.finish(Exchange.SKIPPED, reason)


def provenance(room_id: str, message_id: str) -> str:
    """The `src=` value of a learned line: room and message (a `--` is broken up, since
    metadata comments may not contain it)."""
    value = f"room:{room_id}/msg:{message_id}"
    while "--" in value:
        value = value.replace("--", "-_")
    return value


def plan_apply(run: LearnRun, plan: list[dict]) -> None:
    """Carry out a plan: write (write mode) or only record (report mode) each decision."""
    write = run.config.mode == "write"
    scope = str(run.target.scope)
    for i, item in enumerate(plan):
        key, op = f"p{i}", item["op"]
        if op == "save":
            save_apply(
                run, key, text=item["text"], tier=item["tier"], write=write, meta=item.get("meta")
            )
        elif op == "remove":
            remove_apply(run, key, item, write=write)
        elif op == "hold":
            hold_record(run, key, item)
        elif op == "refuse":
            run.event(
                key,
                "refused",
                reason=item["reason"],
                tier=item["line"] if item["line"] != "remove" else "",
                text=item["text"],
                detail=item["detail"],
                scope=scope if item["line"] != "remove" else "",
            )
        elif op == "known":
            run.event(key, "skipped", reason="known", text=item["text"], detail=item["detail"])
        elif op == "ignored":
            run.event(
                key,
                "ignored",
                detail=f"{item['count']} line(s) of the reply were not in the answer format.",
                text="\n".join(item["sample"]),
            )


def remove_apply(run: LearnRun, key: str, item: dict, *, write: bool) -> None:
    """Retire a machine-made fact from the bot's own shards; held instead if a person made it
    theirs since the plan was made."""
    if write:
        try:
            learned_forget(shards=run.mine, fact_id=item["fact_id"], by=run.ctx.bot, via=VIA)
        except FactNotFound:  # removed by an earlier run of this job, or by hand: it holds
            pass
        except FactProtected:  # a person made it theirs since the plan: theirs to decide
            held = {"op": "hold", "line": "remove", "reason": "protected"}
            hold_record(run, key, item | held | {"detail": PROTECTED_DETAIL})
            return
    left = item.get("left") or []
    run.event(
        key,
        "removed" if write else "would_remove",
        scope=item.get("scope", ""),
        fact_id=item["fact_id"],
        text=item["text"],
        detail=copies_left_detail(left, item.get("scope", "")) if left else "",
    )


def copies_left_detail(bots: list[str], scope: str) -> str:
    """What a removal leaves behind: other bots' copies, which still reach their prompts."""
    who = ", ".join(bots)
    return f"Copies remain in the memory {who} keeps of {scope}: they still reach prompts."


def hold_record(run: LearnRun, key: str, item: dict) -> None:
    """Record a decision held for a person (it lands in the review inbox), in every mode."""
    if item["line"] == "remove":
        run.event(
            key,
            "held_remove",
            reason=item["reason"],
            scope=item.get("scope", ""),
            fact_id=item["fact_id"],
            text=item["text"],
            detail=item["detail"],
        )
        return
    tier = item.get("tier") or item["line"]
    tag = tier if tier in ("note", "episode") else None
    fact = make_fact(text=item["text"], day=run.day, tag=tag, meta=run.meta)
    run.event(
        key,
        "held_save",
        reason=item["reason"],
        scope=str(run.target.scope),
        tier=tier,
        fact_id=fact.identity,
        text=fact.text,
        detail=item["detail"],
    )


def save_apply(
    run: LearnRun, key: str, *, text: str, tier: str, write: bool, meta: dict | None = None
) -> None:
    """Save a learned fact in the run's target shard (or record that report mode would)."""
    scope = str(run.target.scope)
    extra = dict(meta or {})
    if run.target.scope.kind != "bot":
        # "private" means the bot keeps it to itself; a person's own memory is theirs already.
        extra.pop("visibility", None)
    meta = run.meta | {k: str(v) for k, v in extra.items()}
    try:
        if not write:
            tag = tier if tier in ("note", "episode") else None
            fact = make_fact(text=text, day=run.day, tag=tag, meta=meta)
            run.event(
                key, "would_save", scope=scope, tier=tier, fact_id=fact.identity, text=fact.text
            )
            return
        # The first save syncs the target's scope for its duplicate check; the run's later saves,
        # milliseconds after, check against that index (each still re-checks its file, locked).
        fresh = sync_skipped() if run.synced else nullcontext()
        run.synced = True
        with failure_room(run.ctx.room.id), fresh:
            stored = fact_remember(
                shard=run.target,
                text=text,
                tier=tier,  # type: ignore[arg-type]
                day=run.day,
                meta=meta,
                person=run.exchange.person or None,
                by=run.ctx.bot,
                via=VIA,
            )
    except MemstoreError as exc:
        run.event(
            key, "refused", reason=exc.code, scope=scope, tier=tier, text=text, detail=exc.message
        )
        return
    run.event(key, "saved", scope=scope, tier=tier, fact_id=stored.fact_id, text=stored.text)
