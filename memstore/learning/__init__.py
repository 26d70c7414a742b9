"""Automatic learning: after a reply is delivered, a background model call keeps what is worth
remembering from the exchange — safely, visibly and durably.

    submit     exchange_submit: validate, store, queue (or record why skipped)
    sources    what was retrieved, injected and cited for a reported exchange; what was served
    filter     the free small-talk filter                               (pure)
    asked      "remember that…": what a person asked to be remembered (pure)
    requested  keeping what a person asked to be remembered, at once, whatever the mode
    known      the <=140 known facts shown to the model, and duplicate checks
    prompts    extraction and episode prompts, exchange quoted as untrusted data (pure)
    parse      the strict reply parser                                  (pure)
    plan       reply -> decisions; secrets, excluded topics, duplicates (pure)
    room       the people in the room: topics and pauses withheld from the model
    pipeline   one exchange end to end; the model client is a parameter
    apply      writing a plan: saves, removes, holds for review, events
    retire     a `remove:` takes only what the learner made (checked under the lock)
    store      a learning run's progress in one statement
    queue      procrastinate task, retries with backoff, recovery of dead workers' jobs
    activity   what the console shows
    summarize  a text summarized into facts (the summarize endpoint and chat imports)

The model client and the daily token budget are `memstore.llm`'s.
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
