"""Dependencies point one way (STYLE §1): memstore never imports the Django project's front doors."""

import ast
from pathlib import Path

import memstore


def test_memstore_imports_nothing_from_memoryconsole():
    offenders = []
    for path in Path(memstore.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path}: {n}" for n in names if n.split(".")[0] == "memoryconsole"]
    assert offenders == []
