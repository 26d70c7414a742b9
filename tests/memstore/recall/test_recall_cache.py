"""Recall's per-process caches (`memstore.recall.lru`): a slow build of one scope does not hold
up another scope, two threads asking for the same scope build it once, and the budget drops the
least recently used values."""

import threading
import time

from memstore.recall.lru import BuiltCache


def test_a_slow_build_holds_up_only_its_own_key():
    cache: BuiltCache[str] = BuiltCache(100, size=len)
    started, release = threading.Event(), threading.Event()
    builds = []

    def slow(_old):
        builds.append("slow")
        started.set()
        release.wait(5)
        return "slow value"

    waiters = [
        threading.Thread(target=lambda: cache.get("cold", fresh=lambda v: True, build=slow))
        for _ in range(2)
    ]
    for thread in waiters:
        thread.start()
    assert started.wait(5)
    began = time.monotonic()
    assert cache.get("warm", fresh=lambda v: True, build=lambda old: "warm") == "warm"
    assert time.monotonic() - began < 1  # not behind the cold key's build
    release.set()
    for thread in waiters:
        thread.join(5)
    assert builds == ["slow"]  # the second thread took the first one's value


def test_the_budget_drops_the_least_recently_used_and_stale_values_are_rebuilt():
    cache: BuiltCache[str] = BuiltCache(10, size=len)
    cache.get("a", fresh=lambda v: True, build=lambda old: "aaaa")
    cache.get("b", fresh=lambda v: True, build=lambda old: "bbbb")
    cache.get("a", fresh=lambda v: True, build=lambda old: "never")  # a is now the newest
    cache.get("c", fresh=lambda v: True, build=lambda old: "cccc")  # 12 > 10: b goes
    rebuilt = []
    cache.get("b", fresh=lambda v: True, build=lambda old: rebuilt.append(old) or "bb")
    assert rebuilt == [None]  # b was dropped, not kept
    seen = []
    cache.get("c", fresh=lambda v: v == "new", build=lambda old: seen.append(old) or "new")
    assert seen == ["cccc"]  # a stale value is handed to its rebuild
