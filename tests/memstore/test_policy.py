"""The content rules: every secret shape in the corpus refused, at most 1 % of look-alikes
refused, the refusal naming a kind and never the secret, and fast enough for every write."""

import statistics
import time

import pytest

from memstore.rules.policy import excluded_topic, normalise, secret_in_meta, secret_kind
from tests.memstore.secret_corpus import BENIGN, SECRETS


def test_corpus_is_big_enough():
    assert len(SECRETS) >= 100
    assert len(BENIGN) >= 100
    assert len(set(SECRETS)) == len(SECRETS) and len(set(BENIGN)) == len(BENIGN)


def test_every_secret_refused_and_at_most_one_percent_of_benign_texts():
    missed = [text for text in SECRETS if secret_kind(text) is None]
    flagged = [(text, secret_kind(text)) for text in BENIGN if secret_kind(text)]
    print(
        f"\nsecrets refused: {len(SECRETS) - len(missed)}/{len(SECRETS)}; "
        f"benign refused: {len(flagged)}/{len(BENIGN)} ({100 * len(flagged) / len(BENIGN):.1f} %)"
    )
    assert missed == []
    assert len(flagged) <= len(BENIGN) // 100, flagged


def test_fast_enough_for_every_write():
    texts = SECRETS + BENIGN
    for text in texts:  # warm up
        secret_kind(text)
    timings = []
    for text in texts:
        start = time.perf_counter()
        secret_kind(text)
        timings.append(time.perf_counter() - start)
    median_ms = statistics.median(timings) * 1000
    worst_ms = max(timings) * 1000
    print(f"\nsecret_kind: median {median_ms:.3f} ms, worst {worst_ms:.2f} ms per call")
    assert median_ms < 1.0


@pytest.mark.parametrize(
    "text",
    ["password for the " * 29, "login: a " * 55, "://a:" * 100, "1 " * 250, "token " * 83],
)
def test_hostile_texts_of_the_longest_allowed_size_stay_fast(text):
    start = time.perf_counter()
    secret_kind(text[:500])
    assert time.perf_counter() - start < 0.05


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("my password is hunter2", "a password"),
        ("PIN: 4821", "a PIN or access code"),
        ("mct_" + "a1B2" * 11, "a Memory Console token"),
        ("postgres://app:pa55word@db/app", "credentials in a URL"),
        ("4111 1111 1111 1111", "a payment card number"),
    ],
)
def test_the_kind_is_named_and_the_secret_is_not(text, kind):
    assert kind == secret_kind(text)
    secret = text.split()[-1]
    assert secret not in kind


def test_invisible_and_full_width_characters_do_not_hide_a_secret():
    assert normalise("pass\u200bword") == "password"
    assert normalise("ｐａｓｓ\u2060ｗｏｒｄ") == "password"
    assert secret_kind("my pass\u200cword\u00ad is hunter2") == "a password"
    assert secret_kind("ｍｙ ｐａｓｓｗｏｒｄ ｉｓ ｈｕｎｔｅｒ２") == "a password"


def test_metadata_values_are_checked_too():
    assert secret_in_meta({"src": "room:42/msg:981", "by": "ava", "importance": 0.8}) is None
    assert secret_in_meta(None) is None
    assert secret_in_meta({"src": "sk_live_" + "x7Q" * 9}) == "a Stripe key"
    assert secret_in_meta({"src": "https://ann:pa55w0rd@host/x"}) == "credentials in a URL"
    assert secret_in_meta({"password": "hunter2"}) == "a password"


def test_excluded_topics_match_whole_words_after_normalising():
    assert excluded_topic("Talked about her ｈｅａｌｔｈ", ["health"]) == "health"
    assert excluded_topic("Talked about her heal\u200bth", ["health"]) == "health"
    assert excluded_topic("Healthcare budget", ["health"]) is None
    assert excluded_topic("anything", ["  "]) is None
