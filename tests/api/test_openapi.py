"""The API contract as bots see it: the OpenAPI schema is snapshotted so every change is seen."""

import json
from pathlib import Path

from memoryconsole.api import api

SNAPSHOT = Path(__file__).with_name("openapi.json")
REGENERATE = (
    "python manage.py export_openapi_schema --api memoryconsole.api.api --indent 2 --sorted "
    "--output tests/api/openapi.json"
)


def current_schema() -> dict:
    return json.loads(json.dumps(api.get_openapi_schema(), sort_keys=True, default=str))


def test_openapi_matches_the_snapshot():
    assert json.loads(SNAPSHOT.read_text()) == current_schema(), (
        "The API contract changed. If that is intended, regenerate the snapshot and commit it:\n"
        f"    {REGENERATE}"
    )


def test_operations_have_stable_ids_and_json_errors():
    operations = [
        (path, method, op)
        for path, item in current_schema()["paths"].items()
        for method, op in item.items()
    ]
    ids = [op["operationId"] for _, _, op in operations]
    assert sorted(ids) == sorted(set(ids))
    assert set(ids) == {
        "health",
        "whoami",
        "remember",
        "list_facts",
        "forget",
        "forget_fact",
        "fact_feedback",
        "edit_fact",
        "recall",
        "prompt_section",
        "prompt_changes",
        "changes",
        "report_exchange",
        "export_memory",
        "summarize",
        "list_notes",
        "read_about_me",
        "write_about_me",
        "about_me_versions",
        "fact_links",
        "link_add",
        "link_remove",
        "memory_health",
        "memory_health_fix",
        "memory_tool",
    }
    for path, method, op in operations:
        assert path.startswith("/api/v1/")
        for status, response in op["responses"].items():
            if status.startswith(("4", "5")):
                schema = response["content"]["application/json"]["schema"]
                # Health's 503 is its whole report (what is down), for a load balancer.
                body = "HealthOut" if op["operationId"] == "health" else "ErrorOut"
                assert schema == {"$ref": f"#/components/schemas/{body}"}, (path, method)
        if op["operationId"] != "health":
            assert "401" in op["responses"], (path, method)


def test_docs_page_is_served(client):
    assert client.get("/api/docs", HTTP_HOST="localhost").status_code == 200
    schema = client.get("/api/openapi.json", HTTP_HOST="localhost").json()
    assert schema["info"]["title"] == "Memory Console API"
