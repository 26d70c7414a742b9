"""Each way of disguising a secret that got one stored, as a property: whatever key of the
corpus, wherever it is cut, whatever letters are swapped, the disguised text is refused (as a
fact's text, and as a metadata value where a value can hold it); ordinary sentences that look
close are not. The corpus-wide rates are test_policy.py's; the false-positive rate on ordinary
text is `python -m bench secrets --false-positives`."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore.rules.policy import secret_in_meta, secret_kind
from tests.memstore.secret_corpus import KEY_VALUES

KEYS = sorted(v for v in KEY_VALUES.values() if len(v) <= 200)
key = st.sampled_from(KEYS)
# A password someone would use: letters, then digits, a symbol, maybe more letters.
password = st.from_regex(r"[A-Za-z]{3,8}[0-9]{2,4}[%!#@$&*?][a-z]{0,4}", fullmatch=True)
lead = st.sampled_from(["", "the key is ", "Deploy notes: ", "note to self "])
EXAMPLES = settings(max_examples=150, deadline=None)


@EXAMPLES
@given(key, lead)
def test_a_key_written_backwards(value, before):
    assert secret_kind(f"{before}{value[::-1]}"), value


@EXAMPLES
@given(key, st.data(), st.sampled_from([" ", "\n", "  ", "\t"]), lead)
def test_a_key_split_in_two_across_a_space_or_line_break(value, data, gap, before):
    cut = data.draw(st.integers(1, len(value) - 1))
    assert secret_kind(f"{before}{value[:cut]}{gap}{value[cut:]}"), (value, cut)


@EXAMPLES
@given(key, st.data(), lead)
def test_a_key_with_a_literal_backslash_n(value, data, before):
    cut = data.draw(st.integers(1, len(value) - 1))
    text = f"{before}{value[:cut]}\\n{value[cut:]}"
    assert secret_kind(text), (value, cut)
    if " " not in text:
        assert secret_in_meta({"src": text}), (value, cut)


@EXAMPLES
@given(password, st.sampled_from([" ", ".", "-", "_", "*"]), st.booleans())
def test_the_word_password_spelled_out(value, sep, spell_value_too):
    word = sep.join("password")
    said = sep.join(value) if spell_value_too else value
    assert secret_kind(f"my {word} is {said}"), (word, said)
    assert secret_kind(f"{word}: {said}"), (word, said)


_LEET = {"a": "a4@", "s": "s5$", "o": "o0", "e": "e3", "i": "i1!", "t": "t7", "l": "l1"}


@st.composite
def leet(draw, word: str) -> str:
    out = "".join(draw(st.sampled_from(_LEET.get(c, c))) for c in word)
    if out == word:  # at least one letter swapped, or it is no evasion
        i = next(i for i, c in enumerate(word) if c in _LEET)
        out = out[:i] + _LEET[word[i]][1] + out[i + 1 :]
    return out


TEMPLATES = ["my {} is {}", "the wifi {}: {}", "{}: guest / {}", "{} for the NAS is {}"]


@EXAMPLES
@given(
    st.sampled_from(["password", "passcode", "passwd", "login", "credentials"]).flatmap(
        lambda w: st.tuples(st.just(w), leet(w))
    ),
    password,
)
def test_leetspeak_keywords(words, value):
    # Refused as leetspeak wherever the plain word is refused (every template, for a password).
    plain, word = words
    for template in TEMPLATES:
        if secret_kind(template.format(plain, value)):
            assert secret_kind(template.format(word, value)), (template, word)
    if plain.startswith("pass"):
        assert all(secret_kind(t.format(word, value)) for t in TEMPLATES), word


@EXAMPLES
@given(leet("pin"), st.from_regex(r"[0-9]{4,6}", fullmatch=True))
def test_a_leetspeak_pin(word, digits):
    assert secret_kind(f"my {word} is {digits}"), word


USERS = ["admin", "root", "pi", "deploy", "ann@example.com", "guest"]


@EXAMPLES
@given(
    st.sampled_from(USERS),
    password,
    st.sampled_from([" / ", "/", " /  ", "  / "]),
    st.sampled_from(["", "login for the NAS: ", "router ", "Staging server: ", "creds "]),
)
def test_credential_pairs(user, value, sep, before):
    assert secret_kind(f"{before}{user}{sep}{value}"), (user, value)


@pytest.mark.parametrize(
    "text",
    [
        "The secret to good espresso is fresh beans",
        "She works 24/7 on the TCP/IP stack",
        "Caroline and/or Melanie went hiking on 2023/05/08",
        "Mixing 50/50 flour and water works",
        "Read config / settings.py first",
        "admin / dashboard redesign is next",
        "The password policy asks for 12 characters",
        "Plan A B C D for the move",
        "We met at the U.S.A. pavilion",
        "Commit 3f2a9c1b7e4d5f6a8b9c then deploy",
        "She spent 1 hour on the p1ano today",
        "Python 3.12 / Django 6.1 is the stack",
    ],
)
def test_close_ordinary_sentences_are_not_refused(text):
    assert secret_kind(text) is None
