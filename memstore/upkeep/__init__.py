"""Upkeep of memory stores: usage counts, duplicates, contradictions, stale learned facts,
and the guard that keeps every automatic change away from facts saved on purpose.

    guard             fact_protected, fact_archive, fact_supersede: the only automatic writes;
                      merge_check: no merge between facts that differ in meaning
    store             a bot's store as upkeep, synthesis and the health report see it
    usage             batched recall/prompt counts per fact
    pairs             candidate pairs of alike facts, in bounded time at any size
    duplicates        near-duplicate pairs by embedding similarity and word overlap
    meaning           whether two facts differ in meaning (negation, number, date, name, state)
    lexicon           the word lists meaning reads a fact with
    precision         how well the duplicate rule does on labelled pairs
    contradictions    conflicting pairs, judged by a model call
    stale             old, unimportant, unused learned facts
    junk              what a health report calls junk
    synthesis         synthesis ("dreaming"): proposals from a model's read of a store
    prompts           the model calls of upkeep and synthesis
    proposals         proposed changes, and applying them as ordinary writes
    health            the health report of a store or the workspace, and its one-click fixes
    health_snapshots  the last finished report of each store, and making a new one
    readiness         can this server work right now (database, volume, queue)
    setup_check       is this installation set up (what `memory-console doctor` reports)
    scrape            `/metrics` in Prometheus's text format
    run               upkeep_run over one bot store; jobs: the periodic procrastinate task
    jobs              upkeep and synthesis on the durable queue
"""
