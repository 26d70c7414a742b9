"""The content rules: every secret shape in the corpus refused (every family, every evasion,
as text and as a metadata value), at most 1 % of look-alikes refused, the refusal naming a kind
and never the secret, and fast enough for every write."""

import dataclasses
import statistics
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore.rules import policy
from memstore.rules.normalise import fold, hidden_forms
from memstore.rules.policy import excluded_topic, normalise, secret_in_meta, secret_kind
from memstore.rules.secrets import KEY_RULES, RULES
from tests.memstore.secret_corpus import (
    BENIGN,
    EVASIONS,
    FAMILY_SECRETS,
    KEY_VALUES,
    LOOK_ALIKES,
    SECRETS,
    look_alikes_by_shape,
)

ALL_SECRETS = list(dict.fromkeys(SECRETS + FAMILY_SECRETS + list(EVASIONS.values())))
ALL_BENIGN = BENIGN + LOOK_ALIKES


def test_corpus_is_big_enough():
    assert len(SECRETS) >= 100 and len(FAMILY_SECRETS) >= 100 and len(EVASIONS) >= 150
    assert len(ALL_BENIGN) >= 500
    assert len(set(FAMILY_SECRETS)) == len(FAMILY_SECRETS) and len(set(SECRETS)) == len(SECRETS)
    assert len(set(ALL_BENIGN)) == len(ALL_BENIGN)


def test_every_secret_refused_and_at_most_one_percent_of_benign_texts():
    missed = [text for text in ALL_SECRETS if secret_kind(text) is None]
    flagged = [(text, secret_kind(text)) for text in ALL_BENIGN if secret_kind(text)]
    evasions_missed = [name for name, text in EVASIONS.items() if secret_kind(text) is None]
    print(
        f"\nsecrets refused: {len(ALL_SECRETS) - len(missed)}/{len(ALL_SECRETS)} "
        f"(families {len(SECRETS) + len(FAMILY_SECRETS)}, evasions {len(EVASIONS)}, "
        f"evasions stored {len(evasions_missed)}); stored: {len(missed)}; "
        f"look-alikes refused (false positives): {len(flagged)}/{len(ALL_BENIGN)} "
        f"({100 * len(flagged) / len(ALL_BENIGN):.1f} %)"
    )
    assert missed == []
    assert len(flagged) <= len(ALL_BENIGN) // 100, flagged


@pytest.mark.parametrize("family", sorted(KEY_VALUES))
def test_every_family_is_refused_as_a_metadata_value_too(family):
    value = KEY_VALUES[family]
    assert secret_in_meta({"src": value})
    assert secret_in_meta({"tags": f"work,{value},later"})
    assert secret_in_meta({"note": f"x{value[:0]}", "token": value})


@pytest.mark.parametrize(
    "how", ["cyrillic", "greek", "zero-width", "urlsafe-base64", "dash-split", "percent"]
)
def test_evasions_without_spaces_are_refused_as_metadata(how):
    for name, text in EVASIONS.items():
        if name.endswith(f"/{how}"):
            assert secret_in_meta({"src": text}), name


def test_ordinary_metadata_is_not_a_secret():
    meta = {
        "src": "room:42/msg:981",
        "by": "ava",
        "via": "import",
        "type": "decision",
        "importance": 0.8,
        "weight": 0.5,
        "visibility": "private",
        "pin": "true",
        "tags": "gear,coffee,2026-q4",
        "category": "technique",
        "links": "supersedes:3f2a9c1b7e4d5f6a",
    }
    assert secret_in_meta(meta) is None
    assert [text for text in LOOK_ALIKES if " " not in text and secret_in_meta({"src": text})] == []


def test_gates_never_change_a_verdict():
    # A gate only skips a rule that could not match: with every gate removed, the same kinds.
    gated, gated_keys = policy.groups_of(RULES), policy.groups_of(KEY_RULES)
    ungated = policy.groups_of(tuple(dataclasses.replace(rule, gate=None) for rule in RULES))
    ungated_keys = policy.groups_of(
        tuple(dataclasses.replace(rule, gate=None) for rule in KEY_RULES)
    )
    for text in ALL_SECRETS + ALL_BENIGN:
        folded = fold(text)
        assert policy._scan(folded, gated) == policy._scan(folded, ungated), text
        for form in hidden_forms(folded):
            assert policy._scan(form, gated_keys) == policy._scan(form, ungated_keys), text


def test_look_alike_letters_and_hidden_forms_are_undone():
    assert fold("раѕѕwоrd") == "password"  # Cyrillic р, а, ѕ, о
    assert fold("ΑΚΙΑ") == "AKIA"  # Greek
    assert fold("pass\U000e0041word") == "password"  # a tag character
    assert hidden_forms("aGVsbG8gd29ybGQgYWdhaW4=")[0] == "hello world again"
    assert hidden_forms("68656c6c6f20776f726c64")[0] == "hello world"
    assert "sk_live_4eC39HqLyJeW" in hidden_forms("key sk_live_ 4eC3 9HqL yJeW")
    assert hidden_forms("pul-3-a4f5e-6a7b8-c9d0e-f1a2b")[0] == "pul-3a4f5e6a7b8c9d0ef1a2b"
    assert "sk_live_4eC39HqLyJeW" in hidden_forms("key WeJyLqH93Ce4_evil_ks")  # backwards
    assert "sk_live_4eC39HqLyJeW" in hidden_forms("key sk_live_4eC3 9HqLyJeW")
    assert hidden_forms("Caroline went to the LGBTQ support group on 2023-05-08") == []
    commit = f"Fixed in commit {'3f2a9c1b7e4d5f6a8b9c' * 2}"
    assert [form for form in hidden_forms(commit) if policy._scan(form, policy._KEYS)] == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gets_an_answer_and_no_error(text):
    kind = secret_kind(text)
    assert kind is None or kind.startswith(("a ", "an "))


def test_fast_enough_for_every_write():
    texts = ALL_SECRETS + ALL_BENIGN
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


def test_generated_look_alikes_of_every_shape_stay_under_one_percent():
    shapes = look_alikes_by_shape(1000)
    flagged = {name: [t for t in texts if secret_kind(t)] for name, texts in shapes.items()}
    print("\nlook-alikes refused per shape (of 1000 each):")
    for name, found in flagged.items():
        print(f"  {name}: {len(found)}" + (f" e.g. {found[0]!r}" if found else ""))
    assert {name: found for name, found in flagged.items() if len(found) > 10} == {}
