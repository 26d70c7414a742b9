"""manage.py webhooks: register the endpoints that receive the change feed, and read their log.

webhooks add bot|project OWNER URL [--by NAME]
                                   register an endpoint for a bot (what it reads in a routine
                                   room: its own memory, every project it joined) or a project
                                   (that project's memory); prints the signing secret once
webhooks list                      every endpoint with its deliveries by state
webhooks disable ID                stop an endpoint's deliveries (its log stays)
webhooks log [--endpoint ID] [--limit N]
                                   the newest deliveries: event, state, attempts, last answer
"""

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.feed.endpoints import (
    OWNER_KINDS,
    deliveries_recent,
    endpoint_add,
    endpoint_disable,
    endpoints_list,
)


class Command(BaseCommand):
    help = "Register webhook endpoints for the change feed and read their delivery log."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="register an endpoint (prints its secret once)")
        add.add_argument("owner_kind", choices=OWNER_KINDS)
        add.add_argument("owner", help="the bot's or the project's slug")
        add.add_argument("url")
        add.add_argument("--by", default="manage.py", help="who registers it")
        sub.add_parser("list", help="every endpoint")
        disable = sub.add_parser("disable", help="stop an endpoint's deliveries")
        disable.add_argument("endpoint_id", type=int)
        log = sub.add_parser("log", help="the newest deliveries")
        log.add_argument("--endpoint", type=int, default=None)
        log.add_argument("--limit", type=int, default=50)

    def handle(self, *args, action: str, **options):
        try:
            getattr(self, f"do_{action}")(**options)
        except MemstoreError as exc:
            raise CommandError(exc.message) from None

    def do_add(self, *, owner_kind, owner, url, by, **_):
        made = endpoint_add(owner_kind=owner_kind, owner=owner, url=url, by=by)
        self.stdout.write(f"Endpoint {made.id}: {made.owner_kind} {made.owner} -> {made.url}")
        self.stdout.write(f"Signing secret (shown once): {made.secret}")

    def do_list(self, **_):
        for e in endpoints_list():
            state = "active" if e.active else "disabled"
            self.stdout.write(
                f"{e.id}\t{e.owner_kind}:{e.owner}\t{e.url}\t{state}\t"
                f"{e.delivered} delivered, {e.pending} pending, {e.failed} failed"
            )

    def do_disable(self, *, endpoint_id, **_):
        done = endpoint_disable(endpoint_id=endpoint_id)
        self.stdout.write(f"Endpoint {done.id} ({done.url}) disabled.")

    def do_log(self, *, endpoint, limit, **_):
        for d in deliveries_recent(endpoint_id=endpoint, limit=max(1, limit)):
            answer = d.status if d.status is not None else "-"
            self.stdout.write(
                f"{d.updated_at:%Y-%m-%d %H:%M:%S}\tendpoint {d.endpoint_id}\tevent {d.event_id}"
                f"\t{d.state}\t{d.attempts} attempt(s)\t{answer}\t{d.error}"
            )
