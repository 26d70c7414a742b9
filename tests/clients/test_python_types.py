"""The Python client's result types follow the API's OpenAPI schema (tests/api/openapi.json):
every field a response has is named, with the same choices, so a type checker catches what the
server would not send."""

import inspect
import json
import types
import typing

import pytest
from memory_console_client import AsyncClient, Client, results

from tests.helpers import REPO

OPENAPI = json.loads((REPO / "tests" / "api" / "openapi.json").read_text())
SCHEMAS = OPENAPI["components"]["schemas"]

SHAPES = {
    results.Fact: "FactOut",
    results.ListedFact: "ListedFactOut",
    results.SavedFact: "RememberOut",
    results.FactPage: "FactPageOut",
    results.Link: "LinkOut",
    results.Recall: "RecallOut",
    results.Note: "NoteOut",
    results.Block: "BlockOut",
    results.Prompt: "PromptOut",
    results.PromptChanges: "ChangesOut",
    results.Copy: "CopyOut",
    results.Removed: "RemovedOut",
    results.Erased: "ErasedOut",
    results.Forgetting: "ForgetOut",
    results.ExchangeReceipt: "ExchangeOut",
    results.Sources: "SourcesOut",
}


def choices(annotation) -> set | None:
    """The strings a Literal (or `Literal | None`) allows; None for any other type."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        found = [choices(arg) for arg in typing.get_args(annotation) if arg is not type(None)]
        return found[0] if len(found) == 1 else None
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    return None


def enum_of(prop: dict) -> set | None:
    for option in prop.get("anyOf", [prop]):
        if "enum" in option:
            return set(option["enum"])
    return None


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
def test_each_result_type_names_the_fields_of_its_schema(shape):
    schema = SCHEMAS[SHAPES[shape]]
    hints = typing.get_type_hints(shape)
    assert set(hints) == set(schema["properties"])
    for name, annotation in hints.items():
        if (allowed := enum_of(schema["properties"][name])) is not None:
            assert choices(annotation) == allowed, name


def request_enum(schema: str, field: str) -> set:
    return enum_of(SCHEMAS[schema]["properties"][field])


@pytest.mark.parametrize("client", [Client, AsyncClient])
def test_the_call_arguments_offer_the_choices_the_api_takes(client):
    def hints(method: str) -> dict:
        return typing.get_type_hints(getattr(client, method))

    for field in ("scope", "tier", "type", "visibility"):
        assert choices(hints("remember")[field]) == request_enum("RememberIn", field), field
    assert choices(hints("edit")["scope"]) == request_enum("EditIn", "scope")
    assert choices(hints("forget")["scope"]) == request_enum("ForgetIn", "scope")
    headers = OPENAPI["paths"]["/api/v1/facts"]["post"]["parameters"]
    [room_kind] = [p["schema"] for p in headers if p["name"] == "X-Room-Kind"]
    assert choices(hints("__init__")["room_kind"]) == enum_of(room_kind)
    assert inspect.iscoroutinefunction(client.recall) is (client is AsyncClient)
