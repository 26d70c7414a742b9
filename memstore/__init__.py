"""The memory service layer: Markdown files as the truth, a Postgres index, and the rules between.

The folders are the architecture. Each layer may import the layers below it, never one above
(tests/memstore/test_boundaries.py checks it); memstore imports nothing from `memoryconsole`.

    kernel      vocabulary, errors, metrics, invocation, models/: the words, the domain errors,
                the process's measurements (/metrics), how a command is spelled here, the
                Django models
    facts/      the truth on disk: the fact-line grammar, scopes and paths, files, locks,
                history, ranking rules, the read-side records
    rules/      what may be stored and what a read withholds: secret and instruction
                detectors, the content check, a person's controls, and the failure log
    index/      the Postgres mirror of the files: sync before read, rebuild, the budgeted read
    registry/   bots, people and tokens; OAuth clients, connections, codes and tokens for MCP
    rooms/      a bot in a room: the one `Context` opener, access (what a room may see), tickets
                and bindings, idempotent replies
    store/      the one write path (remember, forget, edit, restore, clear), reads, links
    privacy/    the one erasure (over every place that can hold a fact's text),
                verify-forgotten, export
    feed/       the change feed: who sees an event, the feed a bot reads, webhook endpoints,
                their signed deliveries and the delivery log
    recall/     search by words and by meaning, embeddings
    llm/        the model client, its settings and the daily token budget
    learning/   learning from reported exchanges, and summarize
    upkeep/     usage, duplicates, contradictions, staleness, synthesis, the health report
    prompt/     the prompt's memory section, its cache, always-on notes, as-of
    imports/    bringing memory from other tools
    calls/      the bots' door: every function the API and MCP call, one module per router
    console/    the people's door: what a person sees and changes in the console
    management/ the `manage.py` commands, the demo workspace; tasks, apps: Django's entry points
"""

KERNEL_MODULES = ("vocabulary", "errors", "metrics", "invocation", "apps", "tasks")
LAYERS: tuple[tuple[str, ...], ...] = (
    ("vocabulary", "errors", "metrics", "invocation"),
    ("models",),
    ("facts",),
    ("rules",),
    ("index",),
    ("registry",),
    ("rooms",),
    ("store",),
    ("privacy",),
    ("feed",),
    ("recall",),
    ("llm",),
    ("learning",),
    ("upkeep",),
    ("prompt",),
    ("imports",),
    ("calls", "console"),
    ("management", "tasks", "apps"),
)
LAYERS_FLAT = tuple(part for layer in LAYERS for part in layer)
