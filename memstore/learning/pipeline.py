"""One exchange, end to end: the learner's decisions and writes for a stored exchange.

    exchange (stored, queued) -> still allowed? (mode, pause, budget)
      -> the people in the room: their excluded topics and pauses (memstore.learning.room)
      -> known facts -> extraction call (what touches a topic, or a paused person, withheld)
      -> strict parse -> plan (kept on the exchange)
      -> apply: write mode saves/removes through memstore.store.services; report mode only records;
         a remove of a fact saved on purpose, instruction-shaped text, or (in the bot's own
         memory) a fact about someone the speaker asked to remember (memstore.rules.others:
         what "remember that…" held) is held for review
      -> every 6th eligible exchange of the bot in the room: episode call -> one [episode] line
      -> events for the console, exchange done

The model client is a parameter. Routing is decided here, never by the model: in a direct room
everything learned goes to the person's user memory (this bot's shard), so it can never reach a
group; in a group room it goes to the bot's own memory. Every step is safe to run again: the plan
and the episode text are stored before anything is written, writes dedupe by fact identity, and
events are unique per exchange, so a job retried after a crash duplicates nothing. Writing the
plan, and the run that records every event, are `memstore.learning.apply`.
"""

from django.db import connection
from django.db.models import Subquery
from django.utils import timezone

from memstore.facts.markdown import MAX_TEXT_CHARS
from memstore.facts.paths import Scope
from memstore.learning.apply import (
    VIA,
    LearnRun,
    hold_record,
    plan_apply,
    provenance,
    save_apply,
)
from memstore.learning.asked import asked_to_remember
from memstore.learning.known import known_facts
from memstore.learning.parse import episode_parse, reply_parse
from memstore.learning.plan import (
    content_refusal,
    instruction_hold,
    other_hold,
    plan_build,
    secret_values,
)
from memstore.learning.prompts import Turn, episode_prompt, extraction_prompt
from memstore.learning.room import room_people, turn_withheld
from memstore.llm.budget import budget_exhausted
from memstore.llm.client import ModelClient
from memstore.llm.config import (
    EPISODE_MAX_TOKENS,
    EXTRACTION_MAX_TOKENS,
    LearnerConfig,
    learner_config,
)
from memstore.models import Exchange, ProjectMember, TokenUsage
from memstore.rooms.access import writable_shard
from memstore.rooms.context import context_open
from memstore.rooms.outgoing import outgoing, outgoing_said
from memstore.rules.content import shard_shared
from memstore.rules.controls import Controls, controls_parse, controls_sql
from memstore.rules.instructions import instruction_kind
from memstore.rules.others import NOBODY, AskedOthers, asked_others
from memstore.rules.withheld import withholding_parse

__all__ = ["VIA", "exchange_learn", "provenance"]


def exchange_learn(
    *, exchange_id: int, client: ModelClient | None, config: LearnerConfig | None = None
) -> str:
    """Learn from one stored exchange and return its final status (done or skipped).

    Raises what the model client raises (`ModelUnavailable`) or the database raises, for the
    queue to retry; nothing half-done is lost, the next run picks up where this one stopped."""
    config = config or learner_config()
    exchange = (
        Exchange.objects.filter(pk=exchange_id)
        .annotate(  # read with the exchange, in one query: today's spend
            spent_today=Subquery(
                TokenUsage.objects.filter(day=timezone.localdate()).values("tokens")[:1]
            ),
        )
        .first()
    )
    if exchange is None:
        return "missing"
    if exchange.status != Exchange.QUEUED:
        return exchange.status
    run = _run_for(exchange, config)
    if config.mode == "off" or client is None:
        return run.skip("off", "Learning is off: no model is configured, or LEARNING_MODE=off.")
    if run.person.paused:
        return run.skip("paused", f"{exchange.person} paused memory: nothing is learned.")
    if exchange.plan is None and (stale := _too_old(exchange, config)):
        # Recorded as a failure (not a quiet skip), so the home page's "What failed" shows it.
        run.event("skipped", "failed", reason="too_old", detail=stale)
        return run.finish(Exchange.SKIPPED, "too_old")
    run.people = room_people(exchange=exchange, own=run.person if exchange.person else None)
    plan = exchange.plan
    episode_turn = bool(exchange.seq) and exchange.seq % config.episode_every == 0
    if plan is None:
        spent = exchange.spent_today or 0
        if message := budget_exhausted(daily_tokens=config.daily_tokens, spent=spent):
            return run.skip("budget", message)
        plan = _decide(run, client)
        if episode_turn or (
            config.mode == "write" and any(i["op"] in ("save", "remove") for i in plan)
        ):
            # Kept before anything is written or asked next, so a rerun applies these same
            # decisions without asking the model again. Otherwise it is kept with the result.
            run.save()
    plan_apply(run, plan)
    if episode_turn:
        _episode(run, client)
    return run.finish(Exchange.DONE, "" if plan else "nothing")


def _too_old(exchange: Exchange, config: LearnerConfig) -> str:
    # An exchange still queued long after it was reported (a stopped worker, a long outage)
    # is not learned: what it says may be long superseded, and its facts would be dated today.
    age = timezone.now() - exchange.created_at
    if age.days < config.max_age_days:
        return ""
    return (
        f"Reported {age.days} days ago and still queued (was the learning worker stopped?): "
        f"exchanges older than {config.max_age_days} days are not learned "
        "(LEARNING_MAX_AGE_DAYS)."
    )


def _run_for(exchange: Exchange, config: LearnerConfig) -> LearnRun:
    joined = frozenset(
        ProjectMember.objects.filter(bot__slug=exchange.bot).values_list("project", flat=True)
        if exchange.projects
        else ()
    )
    # Projects the bot has left since the exchange was reported are no longer in play.
    ctx = context_open(
        bot=exchange.bot,
        room_id=exchange.room_id,
        room_kind=exchange.room_kind,
        person=exchange.person or None,
        projects=[p for p in exchange.projects if p in joined],
        joined=joined,
    )
    own = writable_shard(ctx, "bot")
    # One read for the run: the exchange's person's controls, and everyone's excluded topics,
    # which is also what the known facts shown to the model withhold (`known_facts`).
    people = [exchange.person] if exchange.person else []
    sql, params = controls_sql(people=people, with_topics=True)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        value = cursor.fetchone()[0]
    controls = controls_parse(value, people=people)
    reader = ctx.reads_for if exchange.person else None
    if ctx.room.kind == "direct":
        target = writable_shard(ctx, "user")
        mine = [target, own]
    else:
        target, mine = own, [own]
    return LearnRun(
        exchange=exchange,
        config=config,
        ctx=ctx,
        target=target,
        mine=mine,
        person=controls.get(exchange.person, Controls("")),
        withholding=withholding_parse(value, person=reader),
    )


def _decide(run: LearnRun, client: ModelClient) -> list[dict]:
    ex = run.exchange
    topics = run.people.topics
    # The day it was said: "next week" in a queued exchange counts from then.
    day = timezone.localtime(ex.created_at).date() if ex.created_at else timezone.localdate()
    # What touches an excluded topic never reaches the model: withheld before the prompt is built.
    turn = turn_withheld(Turn(message=ex.message, reply=ex.reply), person="", people=run.people)
    said = outgoing_said(
        [turn.message, turn.reply], ctx=run.ctx, topics=topics, rule=run.withholding
    )
    turn = Turn(*said.said)
    scopes = [shard.scope for shard in run.mine]
    known = known_facts(
        scopes=scopes,
        projects=[Scope("project", p) for p in run.ctx.projects],
        readable=[*scopes, *(Scope("project", p) for p in run.ctx.projects)],
        exchange_text=f"{turn.message}\n{turn.reply}",
        recalled=[str(r) for r in ex.recalled],
        withholding=run.withholding,
    )
    # Only what this room may read goes to the model (a private fact never from a group).
    cleared = outgoing(known.shown, ctx=run.ctx, topics=topics, rule=run.withholding)
    known.shown = list(cleared.facts)
    prompt = extraction_prompt(
        bot=ex.bot,
        room_kind=ex.room_kind,
        turn=turn,
        known=cleared.texts,
        topics=topics,
        today=day,
        sent=cleared + said,
    )
    completion = client.complete(prompt, max_tokens=EXTRACTION_MAX_TOKENS)
    removing = "remove" in completion.text.lower()
    parsed = reply_parse(completion.text, known=known.quotable() if removing else {}, today=day)
    mine = [str(s.scope) for s in run.mine]
    plan = plan_build(
        parsed,
        known=known,
        ours=known.held_by(bot=ex.bot, scopes=mine),
        excluded_topics=topics,
        secrets=secret_values(f"{ex.message}\n{ex.reply}"),
        protected=known.saved_on_purpose(bot=ex.bot, scopes=mine),
        elsewhere=known.copies_elsewhere(bot=ex.bot, scopes=mine),
        shared=_shared(run),
        asked=_asked([(ex.message, ex.person)], run),
    )
    run.spent(completion.tokens, plan=plan)
    return plan


def _shared(run: LearnRun) -> bool:
    """`shard_shared(run.target)`, without asking the registry again for the bot's own memory
    (its context read whether the bot keeps a private memory)."""
    scope = run.target.scope
    if scope.kind == "bot" and scope.name == run.ctx.bot:
        return not run.ctx.private_memory
    return shard_shared(run.target)


def _asked(said: list[tuple[str, str]], run: LearnRun) -> AskedOthers:
    """Who the speakers of these messages asked the bot's own memory to remember something
    about, besides themselves (none where the learner writes to a person's own memory)."""
    if run.target.scope.kind != "bot":
        return NOBODY
    found = [asked_others(asked_to_remember(m), speaker=p or None) for m, p in said]
    if len(found) == 1:
        return found[0]
    return AskedOthers(people=tuple(sorted({p for a in found for p in a.people})))


def _episode(run: LearnRun, client: ModelClient) -> None:
    ex = run.exchange
    rows = _episode_rows(ex, run.config.episode_every)
    turns = [turn_withheld(Turn(m, r), person=p, people=run.people) for m, r, p in rows]
    if ex.episode is None:
        if message := budget_exhausted(daily_tokens=run.config.daily_tokens):
            run.event("episode", "skipped", reason="budget", tier="episode", detail=message)
            return
        said = outgoing_said(
            [text for turn in turns for text in (turn.message, turn.reply)],
            ctx=run.ctx,
            topics=run.people.topics,
            rule=run.withholding,
        )
        turns = [Turn(*said.said[i : i + 2]) for i in range(0, len(said.said), 2)]
        prompt = episode_prompt(
            bot=ex.bot,
            room_kind=ex.room_kind,
            turns=turns,
            max_chars=run.config.episode_chars,
            sent=said,
        )
        completion = client.complete(prompt, max_tokens=EPISODE_MAX_TOKENS)
        reply = episode_parse(completion.text)
        ex.episode = reply.text
        run.spent(completion.tokens, episode=ex.episode)
        if reply.refused:  # malformed: refused as a whole, never saved as it came
            detail = reply.refused
            sample = reply.sample
            run.event(
                "episode", "refused", reason="malformed", tier="episode", text=sample, detail=detail
            )
            return
        if run.config.mode == "write" and ex.episode:
            run.save()  # kept before it is written, as the plan is
    if not ex.episode:
        return
    refusal = content_refusal(
        ex.episode,
        excluded_topics=run.people.topics,
        secrets=secret_values("\n".join(f"{t.message}\n{t.reply}" for t in turns)),
        shared=_shared(run),
    )
    if len(ex.episode) > MAX_TEXT_CHARS:
        refusal = ("too_long", "The episode is over the 500-character limit for a fact.")
    if refusal:
        reason, detail = refusal
        run.event(
            "episode", "refused", reason=reason, tier="episode", text=ex.episode, detail=detail
        )
        return
    if kind := instruction_kind(ex.episode):
        hold_record(run, "episode", instruction_hold("episode", ex.episode, kind))
        return
    asked = _asked([(m, p) for m, _, p in rows], run)
    if other := asked.held(ex.episode):
        hold_record(run, "episode", other_hold("episode", ex.episode, other, asked))
        return
    save_apply(run, "episode", text=ex.episode, tier="episode", write=run.config.mode == "write")


def _episode_rows(ex: Exchange, every: int) -> list[tuple[str, str, str]]:
    """The last `every` eligible exchanges of this bot in this room, up to this one: message,
    reply and person each (the model sees them withheld: `turn_withheld`)."""
    rows = Exchange.objects.filter(
        bot=ex.bot, room_id=ex.room_id, seq__gt=ex.seq - every, seq__lte=ex.seq
    ).order_by("seq")
    return list(rows.values_list("message", "reply", "person"))
