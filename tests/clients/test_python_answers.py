"""How the Python client reads an answer (`calls.read`): whatever body and status come back, a
refusal is a `MemoryConsoleError` of the class its status names, carrying the API's code when
the body has one; a success is its JSON."""

import json

import httpx2
from hypothesis import given
from hypothesis import strategies as st
from memory_console_client import calls, errors

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
BODIES = st.one_of(
    st.binary(max_size=200),
    JSON.map(lambda value: json.dumps(value).encode()),
    st.fixed_dictionaries(
        {"code": st.text(min_size=1), "message": st.text()}, optional={"detail": JSON}
    ).map(lambda value: json.dumps(value).encode()),
)


RETRY_AFTER = (
    st.none()
    | st.text(st.characters(max_codepoint=255), max_size=6)
    | st.from_regex(r"\A[0-9]{1,6}(\.[0-9])?\Z")
)


@given(status=st.integers(400, 599), body=BODIES, retry=RETRY_AFTER)
def test_every_refusal_raises_the_class_of_its_status(status, body, retry):
    headers = {"Retry-After": retry.encode("latin-1")} if retry is not None else {}
    answer = httpx2.Response(status, content=body, headers=headers)
    try:
        calls.read(answer)
    except errors.MemoryConsoleError as refused:
        assert type(refused) is errors.error_class(status)
        assert refused.status == status and isinstance(refused.detail, dict)
        try:
            sent = json.loads(body)
        except ValueError:
            sent = None
        if isinstance(sent, dict) and "code" in sent:
            assert refused.code == str(sent["code"])
        else:
            assert refused.code == "http_error" and str(status) in refused.message
        if retry is not None and retry.strip().isdecimal() and int(retry) < 86_400:
            assert refused.retry_after == int(retry)
        if refused.retry_after is not None:
            assert 0 <= refused.retry_after < 86_400
    else:
        raise AssertionError(f"{status} was not raised")


def test_a_success_is_its_json():
    answer = httpx2.Response(201, json={"id": "0123456789abcdef", "existed": False})
    assert calls.read(answer) == {"id": "0123456789abcdef", "existed": False}


def test_the_status_classes():
    expected = {
        400: errors.InvalidRequestError,
        401: errors.AuthenticationError,
        403: errors.PermissionDeniedError,
        404: errors.NotFoundError,
        409: errors.ConflictError,
        413: errors.InvalidRequestError,
        422: errors.InvalidRequestError,
        429: errors.RateLimitError,
        500: errors.ServerError,
        502: errors.ServerError,
        503: errors.UnavailableError,
        507: errors.ServerError,
    }
    assert {status: errors.error_class(status) for status in expected} == expected
    assert issubclass(errors.UnavailableError, errors.ServerError)
