"""Fuzz the API from its own OpenAPI schema (schemathesis, in-process through the WSGI app).

For every operation: generated requests (valid ones, and invalid ones) never get a 5xx, every
response matches the documented status codes, content type and schema, and a refused call (any
4xx) leaves every memory file byte for byte as it was. Bounded: a few dozen examples per
operation and mode, so the whole file stays well under a minute.
"""

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.helpers import synced, tree, write_facts

EXAMPLES = 20
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
ROOM = {"X-Room-Id": "r1", "X-Room-Kind": "direct", "X-Person": "alice", "X-Projects": "apollo"}


@pytest.fixture
def api_schema(db):
    # The real WSGI app, inside the test's transaction: like Django's test client, stop the
    # request signals from closing the test's database connection.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def operations(schema):
    for result in schema.get_all_operations():
        yield result.ok()


@pytest.mark.slow
@pytest.mark.parametrize(
    "mode,room",
    [
        (GenerationMode.POSITIVE, ROOM),  # a valid room, so calls reach the memory rules
        (GenerationMode.POSITIVE, {}),  # rooms, people and projects generated too
        (GenerationMode.NEGATIVE, ROOM),  # invalid bodies and parameters
    ],
    ids=["valid-room", "any-room", "invalid-data"],
)
def test_api_survives_its_own_schema(memory_root, tokens, api_schema, mode, room):
    write_facts(memory_root, "agents/a/memory/profile.md", "Likes green tea", "Works from Lisbon")
    write_facts(memory_root, "users/alice/memory/by-agent/b/profile.md", "Alice has a cat")
    write_facts(
        memory_root, "projects/apollo/memory/by-agent/a/log/2026-11.md", "Apollo ships soon"
    )
    synced(memory_root)
    auth = {"Authorization": f"Bearer {tokens['a']}"}
    for operation in operations(api_schema):
        headers = {**auth, **room}
        if mode is GenerationMode.NEGATIVE:
            headers = auth  # let invalid header values be generated as well

        @given(case=operation.as_strategy(generation_mode=mode, headers=headers))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def check(case):
            before = tree(memory_root)
            response = case.call()
            case.validate_response(response, checks=CHECKS)
            if response.status_code >= 400:
                assert tree(memory_root) == before, f"{case.operation.label} changed files"

        try:
            check()
        except Unsatisfiable:
            # Nothing to make invalid (e.g. /health takes no input).
            assert mode is GenerationMode.NEGATIVE, operation.label
