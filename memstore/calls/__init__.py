"""The bots' door: every function the API (`memoryconsole.api`) and MCP (`memoryconsole.mcp`)
call, one module per router, as `memstore.console` is the people's door. The doors import only
this package, `registry` (token checks), `vocabulary` and `errors`
(tests/memstore/test_boundaries.py checks it).

    context      the Context a call opens, and its bookkeeping
    facts        remember, forget (erase), edit, list, the list as of a day
    recall       recall within the time budget, counted as a use
    prompt       the prompt's memory section, counted as a use; what changed since a version
    notes        always-on notes
    links        links between facts
    feedback     useful, outdated, wrong, do-not-use on a fact the room may read
    health       readiness, a bot's record and health report, its fixes
    exchanges    report an exchange; summarize
    changes      the change feed: what changed in what this room reads, after a cursor
    export       a bot's files and archive
    memory_tool  Claude's memory tool (view, create, str_replace, ...) over the scopes' facts
    idempotency  one reply per Idempotency-Key
"""
