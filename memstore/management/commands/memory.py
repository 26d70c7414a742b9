"""`manage.py memory`: remember, forget, list and search a bot's memory from the shell.

    memory remember BOT TEXT [--scope user:alice|project:x] [--tier log|profile|note|episode]
                             [--date YYYY-MM-DD]
    memory forget BOT (ID | --text TEXT) [--scope ...]
    memory list BOT [--scope ...] [--limit N]
    memory search BOT QUERY [--scope ...] [--limit N]
    memory erase (--bot BOT | --person NAME | --all) (ID | --text TEXT) [--by WHO]
    memory verify-forgotten "TEXT or ID"
    memory health (BOT | --all) [--fix-junk]

`erase` forgets a fact and leaves no trace of it within its reach (`memstore.privacy.erase`, the
erasure every front door uses): every shard the bot writes, every bot's shard of a person's
memory, or everything. `verify-forgotten` lists every place a fact still is, looking in every
store an erase cleans (`memstore.privacy.stores`: files, index, history, embeddings, exchanges,
learning events, proposals, review decisions, idempotent replies, notes and their versions,
every other file under MEMORY_ROOT) and exits with status 1 if there is any, 0 if none.

For people and scripts (ops, demos, benchmarks). It calls the same services and selectors as
the API, acting as the bot: writes go to the bot's own shard of the scope. Domain errors come
back as one-line CommandErrors with the service's message.
"""

import importlib
import re

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import InvalidName, MemstoreError
from memstore.facts.markdown import parse_date
from memstore.facts.paths import (
    Scope,
    all_scopes,
    check_person,
    check_slug,
    memory_root,
)
from memstore.facts.ranking import TIERS
from memstore.facts.records import StoredFact
from memstore.privacy.erase import fact_erase, reach_of_bot, reach_of_person, reach_of_workspace
from memstore.privacy.forgotten import occurrences_find, target_resolve
from memstore.privacy.stores import RECORD_KINDS
from memstore.rooms.context import context_open
from memstore.store.selectors import facts_list
from memstore.store.services import fact_forget, fact_remember
from memstore.upkeep.health import KINDS
from memstore.upkeep.health_snapshots import finding_from, health_key, health_refresh
from memstore.vocabulary import FACT_ID_PATTERN


class Command(BaseCommand):
    help = "Remember, forget, list and search a bot's memory."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

        remember = actions.add_parser("remember", help="save a fact")
        remember.add_argument("bot")
        remember.add_argument("text")
        remember.add_argument(
            "--scope", default="bot", help="bot (default), user:NAME, project:SLUG"
        )
        remember.add_argument("--tier", default="log", choices=TIERS)
        remember.add_argument("--date", help="YYYY-MM-DD (default: today)")
        remember.add_argument("--by", default="", help="who is saving it (for history)")

        forget = actions.add_parser("forget", help="remove a fact everywhere the bot writes")
        forget.add_argument("bot")
        forget.add_argument("fact_id", nargs="?", metavar="ID")
        forget.add_argument("--text", help="the fact's text (case and spacing ignored)")
        forget.add_argument("--scope", help="only this scope (default: every scope)")
        forget.add_argument("--by", default="")

        listing = actions.add_parser("list", help="list facts, newest first")
        listing.add_argument("bot")
        listing.add_argument("--scope", default="bot")
        listing.add_argument("--limit", type=int, default=50)

        search = actions.add_parser("search", help="search what the bot may read")
        search.add_argument("bot")
        search.add_argument("query")
        search.add_argument("--scope", default="bot", help="adds user:NAME or project:SLUG")
        search.add_argument("--limit", type=int, default=20)

        erase = actions.add_parser("erase", help="forget a fact and leave no trace of it")
        whose = erase.add_mutually_exclusive_group(required=True)
        whose.add_argument("--bot", dest="erase_bot", help="every shard this bot writes")
        whose.add_argument("--person", help="every bot's shard of this person's memory")
        whose.add_argument(
            "--all", dest="everything", action="store_true", help="everything (staff)"
        )
        erase.add_argument("fact_id", nargs="?", metavar="ID")
        erase.add_argument("--text", help="the fact's text (case and spacing ignored)")
        erase.add_argument("--by", default="", help="who is erasing (for the tombstones)")

        verify = actions.add_parser(
            "verify-forgotten", help="list every remaining copy of a fact (exit 1 if any)"
        )
        verify.add_argument("target", metavar="TEXT_OR_ID")

        health = actions.add_parser("health", help="what looks wrong in a bot's memory")
        health.add_argument("bot", nargs="?")
        health.add_argument("--all", action="store_true", help="the whole workspace")
        health.add_argument("--limit", type=int, default=100)

    def handle(self, *args, action: str, **options):
        try:
            if options.get("bot") is not None:
                check_slug(options["bot"])
            getattr(self, f"do_{action.replace('-', '_')}")(**options)
        except MemstoreError as error:
            raise CommandError(error.message) from error

    def do_remember(self, *, bot, text, scope, tier, date, by, **_):
        shard = _scope(scope, bot).shard(bot)
        day = parse_date(date) if date else None
        fact = fact_remember(shard=shard, text=text, tier=tier, day=day, by=by, via="tool")
        self.stdout.write(f"Remembered {fact.fact_id} in {fact.file}")

    def do_forget(self, *, bot, fact_id, text, scope, by, **_):
        if bool(fact_id) == bool(text):
            raise CommandError("Give the fact's ID or --text TEXT (one of them).")
        scopes = [_scope(scope, bot)] if scope else _written_by(bot)
        changes = fact_forget(
            shards=[s.shard(bot) for s in scopes], fact_id=fact_id, text=text, by=by, via="tool"
        )
        for change in changes:
            self.stdout.write(f"Forgot {change.fact_id} from {change.file}")

    def do_erase(self, *, erase_bot, person, everything, fact_id, text, by, **_):
        if bool(fact_id) == bool(text):
            raise CommandError("Give the fact's ID or --text TEXT (one of them).")
        if erase_bot:
            reach = reach_of_bot(check_slug(erase_bot))
        elif person:
            reach = reach_of_person(check_person(person))
        else:
            reach = reach_of_workspace()
        erased = fact_erase(reach=reach, fact_id=fact_id, text=text, by=by, via="tool")
        for change in erased.removed:
            self.stdout.write(f"Erased {change.fact_id} from {change.file}")
        self.stdout.write(
            f"{erased.history} history line(s) tombstoned, {erased.embeddings} embedding(s) "
            f"deleted, {erased.records} stored record(s) redacted"
            + _by_kind(erased.counts, RECORD_KINDS)
        )

    def do_verify_forgotten(self, *, target, **_):
        value = target.strip()
        named = re.fullmatch(FACT_ID_PATTERN, value.lower())
        found = occurrences_find(
            target=target_resolve(fact_id=value if named else None, text=None if named else value)
        )
        for occurrence in found:
            self.stdout.write(str(occurrence))
        if found:
            raise CommandError(f"{len(found)} occurrence(s) remain.", returncode=1)
        self.stdout.write("No copy remains.")

    def do_list(self, *, bot, scope, limit, **_):
        page = facts_list(scopes=[_scope(scope, bot)], limit=limit)
        self._facts(page.items)
        more = page.total - len(page.items)
        self.stdout.write(
            f"{page.total:,} fact{'s' if page.total != 1 else ''}"
            + (f" ({more:,} more not shown; use --limit)" if more > 0 else "")
        )

    def do_search(self, *, bot, query, scope, limit, **_):
        target = _scope(scope, bot)
        try:
            recall = importlib.import_module("memstore.recall")
            recall_search = recall.recall_search
        except (ImportError, AttributeError):
            recall_search = None
        if recall_search is None:
            scopes = list(dict.fromkeys([Scope("bot", bot), target]))
            page = facts_list(scopes=scopes, contains=query, limit=limit)
            self.stdout.write("(plain text match: recall search is not installed)")
            self._facts(page.items)
            return
        person = target.name if target.kind == "user" else None
        ctx = context_open(
            bot=bot,
            room_id="shell",
            room_kind="direct" if person else "routine",
            person=person,
            projects=[target.name] if target.kind == "project" else [],
        )
        result = recall_search(ctx=ctx, query=query, limit=limit)
        self.stdout.write(f"({result.mode} search{': ' + result.note if result.note else ''})")
        self._facts(result.items)
        if result.more:
            self.stdout.write(f"{result.more:,}{'+' if result.more_capped else ''} more")

    def do_health(self, *, bot, all, limit, **_):
        if bool(bot) == bool(all):
            raise CommandError("Name a BOT or give --all (one of them).")
        # Kept as the console's last report too, so its page shows this one at once.
        snapshot = health_refresh(key=health_key(None if all else bot))
        counts = dict.fromkeys(KINDS, 0)
        for per_kind in snapshot.counts.values():
            for kind, n in per_kind.items():
                counts[kind] = counts.get(kind, 0) + n
        self.stdout.write(
            f"{snapshot.facts:,} facts; "
            + ", ".join(f"{n} {kind.replace('_', '-')}" for kind, n in counts.items())
        )
        for f in map(finding_from, snapshot.findings[:limit]):
            other = f"  (other: {f.other.fact_id})" if f.other else ""
            self.stdout.write(
                f"{f.kind:<13}  {f.fact.fact_id}  {f.fact.scope:<20}  {f.why}: {f.fact.text[:80]}"
                f"{other}  [fix: {', '.join(f.fixes)}]"
            )

    def _facts(self, facts: list[StoredFact]) -> None:
        for fact in facts:
            self.stdout.write(
                f"{fact.day.isoformat()}  {fact.fact_id}  {fact.tier:<7}  {fact.scope:<20}  "
                f"{fact.text}"
            )


def _by_kind(counts: dict[str, int], kinds: tuple[str, ...]) -> str:
    named = [f"{counts[kind]} {kind}" for kind in kinds if counts.get(kind)]
    return f" ({', '.join(named)})" if named else ""


def _scope(value: str, bot: str) -> Scope:
    if value == "bot":
        return Scope("bot", bot)
    try:
        return Scope.parse(value)
    except InvalidName as error:
        raise CommandError(
            f"--scope {value!r}: use bot, user:NAME or project:SLUG. {error}"
        ) from None


def _written_by(bot: str) -> list[Scope]:
    # Every scope holding a shard this bot writes: its own, people's, projects', legacy rooms'.
    root = memory_root()
    shared = [s for s in all_scopes(root) if s.sharded and (root / s.rel / bot).is_dir()]
    return [Scope("bot", bot), *shared]
