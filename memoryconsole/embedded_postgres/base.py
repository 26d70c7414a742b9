"""The embedded-Postgres backend's DatabaseWrapper: Django's own PostgreSQL backend, except that
opening a connection first starts (or joins) the embedded PostgreSQL under the folder in `PGDATA`.

Importing settings, `manage.py check`, ruff and a docs build therefore never start a server;
the first query does. Every later connection first checks the server still runs, and starts it
again if it died (`supervisor`). The server's socket address fills the connection settings in place, so
code that reads `connection.settings_dict` afterwards (tests handing the database to a child
process) sees a real address.
"""

from django.db import OperationalError
from django.db.backends.postgresql import base
from django.utils.functional import cached_property

from memoryconsole.config import embedded_server_start, embedded_server_version


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict:
        try:
            embedded_server_start(self.settings_dict)
        except Exception as error:
            # Could not start it (again), whatever embedded_postgres tripped on: the caller sees a
            # database that is down (503 database_unavailable); the next connection tries again.
            raise OperationalError(f"The embedded Postgres is not running: {error}") from error
        return super().get_connection_params()

    @cached_property
    def pg_version(self) -> int:
        # Django's model checks ask for the version (GeneratedField); the bundled server's own
        # headers answer without starting it.
        return embedded_server_version()
