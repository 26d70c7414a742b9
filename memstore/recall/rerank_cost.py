"""What reranking costs on this machine now: a running estimate, per reranker, of the time one
(query, text) pair takes in this process, so that recall reranks as many of its best matches as
fit the time there is instead of starting ten and giving up on all of them on a busy box.

Owns: `pair_ms` (the estimate: an exponentially weighted mean of observed milliseconds a pair,
starting from PRIOR_MS_PER_PAIR before the first call), `pair_cost_observe` (every scoring run,
finished or cut off, feeds it: the pairs it scored and the time they took) and `pairs_within`
(how many pairs fit a number of milliseconds, with a margin for the estimate being low).

Does not: score, time or choose facts (`rerank` does), or read settings. Per process: a busy
worker learns its own cost.
"""

import threading

PRIOR_MS_PER_PAIR = 8.0  # before the first measurement: the bundled model on a loaded core
WEIGHT = 0.3  # of each new observation in the running mean: a load change is followed in a few
MARGIN = 0.8  # of the time there is, planned for: the estimate is a mean, some pairs are slower
MIN_PAIRS = 2  # reranking fewer than this reorders nothing

_estimates: dict[str, float] = {}
_lock = threading.Lock()


def pair_ms(name: str) -> float:
    """The estimated milliseconds one pair takes with reranker `name` in this process."""
    with _lock:
        return _estimates.get(name, PRIOR_MS_PER_PAIR)


def pair_cost_observe(name: str, *, pairs: int, millis: float) -> float:
    """Fold a scoring run (`pairs` scored in `millis`) into the estimate; the new estimate."""
    if pairs <= 0:
        return pair_ms(name)
    observed = millis / pairs
    with _lock:
        before = _estimates.get(name)
        now = observed if before is None else before + WEIGHT * (observed - before)
        _estimates[name] = now
        return now


def pairs_within(name: str, millis: float, *, most: int) -> int:
    """How many pairs (at most `most`) fit in `millis` at the estimated cost, with the margin;
    0 when fewer than MIN_PAIRS fit (not worth starting)."""
    fit = int(max(0.0, millis) * MARGIN / pair_ms(name))
    fit = min(most, fit)
    return fit if fit >= MIN_PAIRS else 0


def pair_cost_forget() -> None:
    """Forget every estimate (tests)."""
    with _lock:
        _estimates.clear()
