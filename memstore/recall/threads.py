"""The small thread pool recall uses to do two things at once in one search.

Owns: `recall_pool`, one per process (a pool's threads do not survive a fork, and gunicorn's
preloading master forks its workers). Recall runs the query embedding on it while the caller
syncs and ranks by words (`query_vectors`), and half of the matrix product beside the other half
(`matrices`); onnxruntime and numpy release the GIL while they compute, so on an idle second
core these overlap.

Does not: decide what runs on it.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

_pools: dict[int, ThreadPoolExecutor] = {}  # by process id
_lock = threading.Lock()


def recall_pool() -> ThreadPoolExecutor:
    """This process's recall pool (two threads)."""
    pid = os.getpid()
    pool = _pools.get(pid)
    if pool is None:
        with _lock:
            pool = _pools.setdefault(
                pid, ThreadPoolExecutor(max_workers=2, thread_name_prefix="recall")
            )
    return pool
