"""Upkeep of memory stores: usage counts, duplicates, contradictions, stale learned facts,
and the guard that keeps every automatic change away from facts saved on purpose.

    guard           fact_protected, fact_archive, fact_supersede: the only automatic writes
    usage           batched recall/prompt counts per fact
    duplicates      near-duplicate pairs by embedding similarity and word overlap
    contradictions  conflicting pairs, judged by a model call
    stale           old, unimportant, unused learned facts
    run             upkeep_run over one bot store; jobs: the periodic procrastinate task
"""
