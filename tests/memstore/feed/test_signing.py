"""The webhook signature: made and checked by `memstore.feed.signing`, and checked by the
receiver example in docs/api.md exactly as printed there."""

import re

from hypothesis import given
from hypothesis import strategies as st

from memstore.feed.signing import secret_new, signature_header, signature_of, signature_valid
from tests.helpers import REPO


def docs_verifier():
    text = REPO.joinpath("docs/api.md").read_text()
    code = re.search(r"<!-- webhook-verify -->\n```python\n(.*?)```", text, re.S).group(1)
    space: dict = {}
    exec(compile(code, "docs/api.md", "exec"), space)
    return space["verified"]


def test_the_docs_example_accepts_a_real_signature_and_refuses_tampering():
    verified = docs_verifier()
    secret, body = secret_new(), b'{"id": 7, "event": {"text": "Launch is on May 4"}}'
    header = signature_header(secret=secret, body=body)

    assert verified(secret, header, body)
    assert not verified(secret, header, body.replace(b"May 4", b"May 5"))
    assert not verified("whsec_other", header, body)
    assert not verified(secret, signature_header(secret=secret, body=body, now=1_000), body)
    assert not verified(secret, "", body)


def test_the_signature_is_hmac_sha256_over_timestamp_dot_body():
    # A known answer, so a receiver in any language can check its implementation against it.
    assert signature_of(secret="whsec_test", timestamp=1700000000, body=b"{}") == (
        "35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91"
    )


@given(body=st.binary(max_size=200), now=st.integers(min_value=10**9, max_value=2 * 10**9))
def test_a_signature_checks_out_only_for_its_own_body_and_time(body, now):
    secret = "whsec_property"
    header = signature_header(secret=secret, body=body, now=now)
    assert signature_valid(secret=secret, header=header, body=body, now=now)
    assert not signature_valid(secret=secret, header=header, body=body + b"x", now=now)
    assert not signature_valid(secret=secret, header=header, body=body, now=now + 301)
