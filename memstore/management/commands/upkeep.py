"""`manage.py upkeep`: run upkeep or synthesis over bot stores now, in the foreground.

    upkeep BOT [--mode report|write]              one upkeep pass (default: report)
    upkeep --all [--mode report|write]
    upkeep BOT --synthesis [--mode report|write]  one synthesis pass (needs the learning model)
    upkeep --queue                                queue the passes UPKEEP_MODE/SYNTHESIS_MODE ask for
    upkeep BOT --lessons | --all --lessons        propose recurring lessons for About me notes
                                                  (AGENT_LESSONS=propose; no model needed)

Model calls go to the learning model (LEARNING_BASE_URL, LEARNING_MODEL) and count against
LEARNING_DAILY_TOKENS. Without a model, upkeep still merges duplicates and archives stale facts.
"""

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.facts.paths import check_slug
from memstore.llm.config import learner_config, model_client
from memstore.upkeep.store import store_bots


class Command(BaseCommand):
    help = "Run upkeep (duplicates, contradictions, stale facts) or synthesis over bot stores."

    def add_arguments(self, parser):
        parser.add_argument("bot", nargs="?")
        parser.add_argument("--all", action="store_true", help="every bot")
        parser.add_argument("--mode", choices=("report", "write"), default="report")
        parser.add_argument("--synthesis", action="store_true", help="a synthesis pass instead")
        parser.add_argument("--queue", action="store_true", help="queue the periodic passes now")
        parser.add_argument(
            "--lessons", action="store_true", help="propose recurring lessons for About me"
        )

    def handle(self, *args, bot, all, mode, synthesis, queue, lessons, **options):
        if queue:
            from memstore.upkeep.jobs import upkeep_enqueue_all

            self.stdout.write(f"Queued {upkeep_enqueue_all()} pass(es).")
            return
        if bool(bot) == bool(all):
            raise CommandError("Name a BOT or give --all (one of them).")
        try:
            bots = store_bots() if all else [check_slug(bot)]
        except MemstoreError as error:
            raise CommandError(error.message) from error
        if lessons:
            self._lessons(bots)
            return
        client = model_client(learner_config())
        for slug in bots:
            if synthesis:
                self._synthesis(slug, mode, client)
            else:
                self._upkeep(slug, mode, client)

    def _lessons(self, bots) -> None:
        from memstore.prompt.lessons import lessons_on, lessons_propose

        if not lessons_on():
            raise CommandError("Lessons for agents are off: set AGENT_LESSONS=propose first.")
        for slug in bots:
            proposal = lessons_propose(bot=slug)
            self.stdout.write(
                f"{slug}: {proposal.reason} (proposal {proposal.pk}, in its Proposals inbox)"
                if proposal
                else f"{slug}: no new recurring lesson."
            )

    def _upkeep(self, bot, mode, client) -> None:
        from memstore.upkeep.run import upkeep_run

        r = upkeep_run(bot=bot, mode=mode, client=client)
        self.stdout.write(
            f"{bot}: {r.facts:,} facts; {r.duplicates} duplicate(s), {r.contradictions} "
            f"contradiction(s), {r.stale} stale; {r.applied} applied, {r.left_for_people} left "
            f"for people; {r.model_calls} model call(s), {r.tokens:,} tokens ({mode})"
        )
        for note in r.notes:
            self.stdout.write(f"  {note}")

    def _synthesis(self, bot, mode, client) -> None:
        from memstore.upkeep.synthesis import synthesis_run

        if client is None:
            raise CommandError(
                "Synthesis needs the learning model (LEARNING_BASE_URL, LEARNING_MODEL)."
            )
        r = synthesis_run(bot=bot, mode=mode, client=client)
        self.stdout.write(
            f"{bot}: {r.proposed} proposed, {r.approved} approved, {r.rejected} rejected, "
            f"{r.applied} applied; {r.calls} model call(s), {r.tokens:,} tokens ({mode})"
        )
        for note in r.notes:
            self.stdout.write(f"  {note}")
