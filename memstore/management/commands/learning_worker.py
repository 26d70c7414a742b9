"""manage.py learning_worker: the procrastinate worker, kept running while the database goes away.

`manage.py procrastinate worker` stops for good when it loses its database (a side task fails
and the worker stops itself). This runs the same worker (same tasks, same
PROCRASTINATE_WORKER_DEFAULTS) in a loop: when it stops without being asked to, it waits until
the database answers again (for the embedded Postgres, that first connection starts it again)
and starts a fresh worker on new connections. SIGINT or SIGTERM stop it as they stop the plain
worker: the job in hand is finished first. Jobs the lost worker had in hand are handed back by
the stalled-job recovery (every minute, or `manage.py learning_recover`); every step of a job is
idempotent, so a job run twice writes once.
"""

import asyncio
import logging
import signal
import threading
import time

from django.core.management.base import BaseCommand
from django.db import InterfaceError, OperationalError, connection
from procrastinate.contrib.django import app
from procrastinate.worker import Worker

logger = logging.getLogger("memstore.learning.worker")

WAIT_MAX_SECONDS = 5.0  # the longest pause between two tries while the database is down


class Command(BaseCommand):
    help = (
        "Run a learning worker that reconnects when the database comes back (instead of "
        "exiting, as `procrastinate worker` does)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--queues", default="", help="Comma-separated; default: all.")
        parser.add_argument("--concurrency", type=int, default=1)

    def handle(self, *args, queues: str, concurrency: int, **options):
        stop = threading.Event()
        names = [q.strip() for q in queues.split(",") if q.strip()] or None
        rounds = 0
        while not stop.is_set():
            # Between rounds (asyncio puts the default handlers back when its loop closes).
            for number in (signal.SIGINT, signal.SIGTERM):
                signal.signal(number, lambda *_: stop.set())
            if not database_wait(stop):
                break
            if rounds:
                self.stderr.write("The database is back: starting the learning worker again.")
            rounds += 1
            connector = app.connector.get_worker_connector()  # fresh connections each round
            with app.replace_connector(connector) as worker_app:
                try:
                    asyncio.run(_work(worker_app, stop, queues=names, concurrency=concurrency))
                except (OSError, OperationalError, InterfaceError, RuntimeError) as error:
                    logger.warning("learning worker lost its database: %s", error)
                except Exception as error:  # procrastinate wraps the driver's errors
                    if not _database_error(error):
                        raise
                    logger.warning("learning worker lost its database: %s", error)
            if not stop.is_set():
                self.stderr.write("The learning worker stopped: waiting for the database.")
                time.sleep(0.5)


async def _work(worker_app, stop: threading.Event, *, queues, concurrency: int) -> None:
    worker_app.perform_import_paths()
    async with worker_app.open_async():
        options = {**worker_app.worker_defaults, "queues": queues, "concurrency": concurrency}
        worker = Worker(app=worker_app, **options, install_signal_handlers=False)
        loop = asyncio.get_running_loop()

        def asked_to_stop() -> None:
            stop.set()
            worker.stop()

        for number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(number, asked_to_stop)
        await worker.run()


def database_wait(stop: threading.Event) -> bool:
    """Block until the database answers (True), or until asked to stop (False)."""
    pause = 0.2
    while not stop.is_set():
        try:
            connection.ensure_connection()
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            return True
        except (OperationalError, InterfaceError) as error:
            logger.warning("waiting for the database: %s", error)
            connection.close()
        stop.wait(pause)
        pause = min(WAIT_MAX_SECONDS, pause * 2)
    return False


def _database_error(error: BaseException) -> bool:
    while error is not None:
        if isinstance(error, OperationalError | InterfaceError | OSError):
            return True
        name = type(error).__module__
        if name.startswith(("psycopg", "psycopg_pool")):
            return True
        error = error.__cause__ or error.__context__
    return False
