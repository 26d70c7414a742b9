"""The API's layout: routers hold endpoints, schemas hold every request and response shape."""

import ast
from pathlib import Path

import memoryconsole.api.routers as routers


def test_no_router_declares_a_schema():
    declared = [
        f"{path.name}: {node.name}"
        for path in Path(routers.__file__).parent.glob("*.py")
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.ClassDef)
    ]
    assert declared == []
