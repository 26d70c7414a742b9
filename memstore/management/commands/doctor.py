"""`manage.py doctor` (`memory-console doctor`): what is set up and what is not, with what to
do about each (`memstore.upkeep.setup_check`), and whether a server answers on HOST:PORT.
Exits 1 when something needs fixing."""

import os
import sys
import urllib.error
import urllib.request

from django.core.management.base import BaseCommand

from memstore.invocation import manage_command
from memstore.upkeep.setup_check import Check, setup_checks


def _server() -> Check:
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    url = f"http://{host}:{port}/api/v1/health"
    try:
        urllib.request.urlopen(url, timeout=3).close()
    except urllib.error.HTTPError as error:
        return Check("server", True, f"answers on {host}:{port} (health says {error.code})")
    except OSError:
        serve = manage_command().replace(" manage", " serve")
        return Check("server", False, f"nothing answers on {host}:{port}", f"start it: `{serve}`")
    return Check("server", True, f"answers on {host}:{port}")


class Command(BaseCommand):
    help = "Check the data folder, database, models, worker, queue and port; say what to fix."

    def handle(self, *args, **options):
        checks = [*setup_checks(), _server()]
        for check in checks:
            mark = "✓" if check.ok else "✗"
            line = f"{mark} {check.name}: {check.found}"
            if check.fix and not check.ok:
                line += f"\n    → {check.fix}"
            elif check.fix:
                line += f" ({check.fix})"
            self.stdout.write(line)
        if not all(check.ok for check in checks):
            sys.exit(1)
