"""The folders are the architecture (STYLE §1): memstore's packages import downwards only, along
the layers `memstore/__init__.py` draws, and memstore never imports the Django project's front
doors nor another module's private names."""

import ast
import re
from pathlib import Path

import memoryconsole
import memstore

ROOT = Path(memstore.__file__).parent


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) for every import in a file; a relative import resolved to its module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def _sources() -> list[Path]:
    return [p for p in ROOT.rglob("*.py") if "migrations" not in p.relative_to(ROOT).parts]


def _part(path: Path) -> str:
    """The package (or kernel module) a file belongs to: `facts`, `vocabulary`, ..."""
    first = path.relative_to(ROOT).parts[0]
    return first.removesuffix(".py")


def _part_of_module(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "memstore" or len(parts) == 1:
        return None
    return parts[1]


def test_memstore_imports_nothing_from_memoryconsole():
    offenders = [
        f"{path}: {module}"
        for path in _sources()
        for module, _ in _imports(path)
        if module.split(".")[0] == "memoryconsole"
    ]
    assert offenders == []


def test_every_part_of_memstore_is_in_the_layers():
    parts = {_part(p) for p in _sources()} - {"__init__"}
    assert parts == set(memstore.LAYERS_FLAT)


def test_packages_import_only_their_own_layer_or_below():
    rank = {part: i for i, layer in enumerate(memstore.LAYERS) for part in layer}
    offenders = []
    for path in _sources():
        here = _part(path)
        if here == "__init__":
            continue
        for module, names in _imports(path):
            targets = [module] if module != "memstore" else [f"memstore.{n}" for n in names]
            for target in targets:
                there = _part_of_module(target)
                if there is None or there == here:
                    continue
                if rank[there] >= rank[here]:
                    offenders.append(f"{path.relative_to(ROOT)} ({here}) imports {target}")
    assert offenders == []


def test_no_module_imports_another_modules_private_names():
    offenders = []
    project = Path(memoryconsole.__file__).parent
    for path in _sources() + list(project.rglob("*.py")):
        for module, names in _imports(path):
            if module.startswith("memstore"):
                offenders += [
                    f"{path.relative_to(ROOT)}: {module}.{n}"
                    for n in names
                    if n.startswith("_") and not n.startswith("__")
                ]
    assert offenders == []


def test_the_top_level_holds_only_the_kernel_and_packages():
    modules = sorted(p.stem for p in ROOT.glob("*.py") if p.stem != "__init__")
    assert modules == sorted(memstore.KERNEL_MODULES)


# The two doors: the bots' (the API and MCP) reach memstore through `calls`, the people's (the
# web console) through `console`; either may also use the words, the errors and the token checks.
DOOR_MAY_IMPORT = {
    "api": {"calls", "registry", "vocabulary", "errors", "invocation"},
    "mcp": {"calls", "registry", "vocabulary", "errors", "invocation"},
}


def _door_offenders(door: str) -> list[str]:
    folder = Path(memoryconsole.__file__).parent / door
    allowed = DOOR_MAY_IMPORT[door]
    offenders = []
    for path in folder.rglob("*.py"):
        for module, names in _imports(path):
            targets = [module] if module != "memstore" else [f"memstore.{n}" for n in names]
            for target in targets:
                there = _part_of_module(target)
                if target.split(".")[0] == "memstore" and there not in allowed:
                    offenders.append(f"{path.relative_to(folder.parent)} imports {target}")
    return offenders


def test_the_bots_door_imports_only_calls_registry_vocabulary_and_errors():
    assert _door_offenders("api") == []
    assert _door_offenders("mcp") == []


def test_every_package_map_names_every_module():
    """Each package's docstring is its map: it names every module the package holds."""
    missing = []
    for package in sorted(p for p in ROOT.iterdir() if (p / "__init__.py").exists()):
        if package.name == "migrations":
            continue
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        words = set(re.findall(r"[a-z_][a-z0-9_]*", doc))
        for module in sorted(package.glob("*.py")):
            if module.stem != "__init__" and module.stem not in words:
                missing.append(f"{package.name}/{module.name}")
    assert missing == []
