"""Automatic learning (SPEC §7): after a reply is delivered, a background model call keeps what
is worth remembering from the exchange — safely, visibly and durably.

    submit.py    exchange_submit: validate, store, queue (or record why skipped)
    filter.py    the free small-talk filter                               (pure)
    known.py     the <=140 known facts shown to the model, and duplicate checks
    prompts.py   extraction and episode prompts, exchange quoted as untrusted data (pure)
    parse.py     the strict reply parser                                  (pure)
    plan.py      reply -> decisions; secrets, excluded topics, duplicates (pure)
    room.py      the people in the room: topics and pauses withheld from the model
    pipeline.py  one exchange end to end; the model client is a parameter
    apply.py     writing a plan: saves, removes, holds for review, events
    retire.py    a `remove:` takes only what the learner made (checked under the lock)
    client.py    the OpenAI-compatible model client
    budget.py    the daily token budget
    queue.py     procrastinate task, retries with backoff, recovery of dead workers' jobs
    activity.py  what the console shows

The API and the console call only `exchange_submit`, `activity_list`, `activity_counts` and
`learning_status`.
"""

from memstore.learning.activity import (
    Activity,
    LearningStatus,
    activity_counts,
    activity_list,
    learning_status,
)
from memstore.learning.submit import ExchangeReceipt, exchange_submit

__all__ = [
    "Activity",
    "ExchangeReceipt",
    "LearningStatus",
    "activity_counts",
    "activity_list",
    "exchange_submit",
    "learning_status",
]
