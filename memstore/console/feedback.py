"""A person's word on a fact in the console: confirm it (still true: `checked=` today, any
feedback mark and review day lifted) or mark it outdated, wrong or do-not-use, as a bot may.

Every copy of the fact in the scope of the file shown is marked, so a `wrong` mark takes it out
of every prompt at once (`memstore.store.feedback` writes, `memstore.facts.validity` decides
what each verb means). Only the editors of the bot whose file is shown (and staff) may, as for
an edit; the copies other bots' shards hold in that scope are marked with it.

Does not: decide wording, or write files itself.
"""

from memstore.console.facts import FactRow, console_fact_get, shard_of_file
from memstore.console.viewer import Viewer
from memstore.errors import InvalidFact
from memstore.store.feedback import FeedbackGiven, fact_feedback
from memstore.store.selectors import fact_find
from memstore.vocabulary import MARKS

# What a person may say: confirm (a bot says `useful`), or one of the marks.
PERSON_VERBS = ("confirm", *MARKS)


def console_fact_feedback(
    *, viewer: Viewer, file: str, fact_id: str, verb: str
) -> tuple[FeedbackGiven, FactRow]:
    """Write a person's verb on the fact in `file` and its copies in that scope; the row of the
    file's copy as it reads now. InvalidFact for an unknown verb, NotAllowed unless the person
    may edit the file's bot (as for an edit)."""
    if verb not in PERSON_VERBS:
        raise InvalidFact(f"Say one of {', '.join(PERSON_VERBS)}, not {verb!r}.")
    shard = shard_of_file(viewer, file)
    viewer.check_editor(shard.bot)
    console_fact_get(viewer=viewer, file=file, fact_id=fact_id)  # FactNotFound if it is gone
    copies = fact_find(scopes=[shard.scope], fact_id=fact_id)
    copies.sort(key=lambda c: c.file != file)  # the copy shown first
    given = fact_feedback(copies=copies, verb=verb, by=viewer.person, via="console")
    return given, console_fact_get(viewer=viewer, file=file, fact_id=fact_id)
