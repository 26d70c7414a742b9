"""`bench scale`'s measuring at one size, in the child process `bench scale --child SIZE` runs:
the timed calls by row (recall hybrid and words only, the prompt section, the console's page
and keystroke, no-op syncs), their medians and p95s over the runs, and one call's statements.
Does not build the workspace (`bench._scale`) or report across sizes (`bench.scale`).
"""

import json
import os
import time

from bench._scale import ensure, hnsw_restore
from bench._workspace import log
from bench.harness import median, p95

KEY_PHRASES = ["lisbon flight", "offsite budget", "sql migration", "hotel near the venue"]
ROWS = {  # key: (label, target note)
    "hybrid": ("recall, hybrid, new question", "API"),
    "lexical": ("recall, words only", "API"),
    "prompt": ("prompt section (`prompt_answer`, as `GET /api/v1/prompt`)", "API"),
    "page": ("console bot page (full page)", "console"),
    "keystroke": ("console search keystroke (htmx partial)", "console"),
    "sync_bot": ("no-op sync, the bot's 4 readable scopes", ""),
    "sync_all": ("no-op sync, every scope", ""),
}


# --- measuring (in the child process for one size) ------------------------------------------


def keystrokes() -> list[str]:
    """What a person types into the bot page's search box, one letter at a time."""
    return [phrase[:n] for phrase in KEY_PHRASES for n in range(2, len(phrase) + 1)]


def subjects(spec: dict) -> dict:
    """The timed calls, by ROWS key; each takes one argument (a question or typed text)."""
    from urllib.parse import quote

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from memstore.facts.paths import all_scopes, memory_root
    from memstore.index import index_sync
    from memstore.prompt.answer import prompt_answer
    from memstore.recall.query_vectors import query_vectors_clear
    from memstore.recall.search import recall_search
    from memstore.rooms.access import readable_scopes
    from memstore.rooms.context import context_open

    ctx = context_open(
        bot=spec["bot"],
        room_id="bench-room",
        room_kind="direct",
        person=spec["person"],
        projects=spec["projects"],
    )
    scopes = readable_scopes(ctx)
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    person, _ = get_user_model().objects.get_or_create(
        username="bench-scale", defaults={"is_staff": True}
    )
    client = Client()
    client.force_login(person)
    page = f"/bots/{spec['bot']}/"

    def get(url: str, **headers) -> None:
        response = client.get(url, **headers)
        assert response.status_code == 200, (url, response.status_code)

    def hybrid(question: str) -> None:
        query_vectors_clear()  # a new question: the model runs
        recall_search(ctx=ctx, query=question)

    def keystroke(typed: str) -> None:
        query_vectors_clear()  # every keystroke is new text
        get(f"{page}?q={quote(typed)}", HTTP_HX_REQUEST="true")

    def prompt(_: str) -> None:
        answer = prompt_answer(ctx=ctx)
        assert (answer.memory, answer.stale) == ("ok", False), "the prompt was not built in time"

    def sync(scopes_now) -> None:
        assert index_sync(scopes=scopes_now()).changed == 0, "the sync was not a no-op"

    return {
        "hybrid": hybrid,
        "lexical": lambda q: recall_search(ctx=ctx, query=q, mode="lexical"),
        "prompt": prompt,
        "page": lambda _: get(page),
        "keystroke": keystroke,
        "sync_bot": lambda _: sync(lambda: scopes),
        "sync_all": lambda _: sync(lambda: all_scopes(memory_root())),
    }


def measure(spec: dict, runs: int, samples: int) -> dict:
    """Per ROWS key: median of the per-run medians and p95s (ms), and one call's statements."""
    import random

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench._recall_workspace import questions

    calls = subjects(spec)
    typed = keystrokes()
    statements = {}
    for key, call in calls.items():
        call("warm up")  # loads this process's vectors, vocabulary, templates
        with CaptureQueriesContext(connection) as captured:
            call(typed[-1] if key == "keystroke" else "who booked the offsite budget")
        statements[key] = len(captured)
    per_run: dict[str, list[tuple[float, float]]] = {key: [] for key in calls}
    rng = random.Random(11)
    for run in range(runs):
        asked = questions(rng, samples)
        for key, call in calls.items():
            args = asked
            if key == "keystroke":  # `samples` keystrokes, the next ones each run
                args = [typed[(run * samples + i) % len(typed)] for i in range(samples)]
            if key == "sync_all":
                args = args[: max(3, samples // 4)]  # every file of the workspace: fewer
            times = []
            for arg in args:
                started = time.perf_counter()
                call(arg)
                times.append((time.perf_counter() - started) * 1000)
            per_run[key].append((median(times), p95(times)))
        log(
            f"run {run + 1}/{runs}: "
            + ", ".join(f"{key} {values[-1][0]:.1f}" for key, values in per_run.items())
            + " ms"
        )
    return {
        key: {
            "p50": median(m for m, _ in values),
            "p95": median(p for _, p in values),
            "statements": statements[key],
        }
        for key, values in per_run.items()
    }


def child(size: int, runs: int, samples: int, explain: bool, hnsw_first: bool) -> None:
    """Build or reuse the workspace of one size, measure it, print the results as JSON."""
    state = ensure(size, hnsw_first=hnsw_first)
    if explain:
        from bench._scale import explain_all

        explain_all(state["spec"], subjects(state["spec"]))
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    rows = measure(state["spec"], runs, samples)
    load_after = os.getloadavg()[0]
    if not hnsw_first and (seconds := hnsw_restore(size)) is not None:
        state["build"]["hnsw_s"] = seconds
    print(
        json.dumps(
            state
            | {
                "rows": rows,
                "measure_s": time.perf_counter() - started,
                "load": [load_before, load_after],
            }
        )
    )
