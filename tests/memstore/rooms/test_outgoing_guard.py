"""The guard that keeps every model call behind the outgoing gate (`memstore.rooms.outgoing`):
it reads memstore's code and fails when a new caller could send text to a model without it.

- Only the three model clients talk to a model over the network (the chat client, the remote
  reranker, the remote embeddings endpoint), and each one's sending method checks that what it
  sends is a `Cleared` (`cleared_check`) before anything else.
- Every `Prompt` is built with `sent=` (what the gate cleared), and every call of a prompt
  builder (`*_prompt`) passes one: the client refuses a prompt without it at run time, and
  this test refuses the code that would build one.
- Nothing but the gate makes a `Cleared` (its stamp is the gate's alone).
"""

import ast
from pathlib import Path

import pytest

MEMSTORE = Path(__file__).resolve().parents[3] / "memstore"
NETWORK = ("openai", "urllib.request", "http.client", "requests", "httpx", "aiohttp", "smtplib")
CLIENTS = {
    "llm/client.py": {"OpenAICompatibleClient.complete"},
    "recall/rerankers.py": {"HttpReranker.score"},
    "recall/embeddings.py": {
        "OpenAICompatibleEmbedder.embed_passages",
        "OpenAICompatibleEmbedder.embed_query",
    },
}
GATE = "rooms/outgoing.py"
# Network users that are no model call, each with what keeps what it sends in bounds.
NOT_MODELS = {
    "feed/dispatch.py": "webhook deliveries: only events the endpoint's audience may read "
    "(memstore.feed.audience), to an endpoint staff registered",
    "management/commands/doctor.py": "GET /api/v1/health on this server's own address; sends "
    "no memory",
}


def modules() -> list[tuple[str, ast.Module]]:
    found = []
    for path in sorted(MEMSTORE.rglob("*.py")):
        if "migrations" not in path.parts:
            rel = path.relative_to(MEMSTORE).as_posix()
            found.append((rel, ast.parse(path.read_text(encoding="utf-8"), filename=rel)))
    return found


def imported(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def methods(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


def calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def name_of(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def test_only_the_model_clients_talk_to_a_model():
    talking = {
        rel
        for rel, tree in modules()
        if any(
            name == net or name.startswith(net + ".") for name in imported(tree) for net in NETWORK
        )
    }
    assert talking == set(CLIENTS) | set(NOT_MODELS), (
        "a module talks to the network outside the model clients: send through "
        "memstore.llm.client, or give the new client a Cleared-only method listed here"
    )


@pytest.mark.parametrize("rel", sorted(CLIENTS))
def test_each_model_clients_sending_method_checks_the_gate_first(rel):
    tree = dict(modules())[rel]
    found = methods(tree)
    for method in CLIENTS[rel]:
        body = found[method]
        assert any(name_of(c) == "cleared_check" for c in calls(body)), (rel, method)


def test_every_prompt_and_every_prompt_builder_call_carries_what_the_gate_cleared():
    missing = []
    for rel, tree in modules():
        for call in calls(tree):
            name = name_of(call)
            if name == "Prompt" or (name.endswith("_prompt") and name != "_prompt"):
                sent = next((k.value for k in call.keywords if k.arg == "sent"), None)
                if sent is None or (isinstance(sent, ast.Constant) and sent.value is None):
                    missing.append(f"{rel}:{call.lineno} {name}(...) without sent=")
    assert missing == []


def gated(tree: ast.Module) -> bool:
    """Whether the module imports the gate's `Cleared` (console.writes has one of its own)."""
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "memstore.rooms.outgoing"
        and any(alias.name == "Cleared" for alias in node.names)
        for node in ast.walk(tree)
    )


def test_only_the_gate_makes_a_cleared():
    stamping = [
        f"{rel}:{node.lineno}"
        for rel, tree in modules()
        if rel != GATE
        for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and node.id == "_GATE")
        or (isinstance(node, ast.Attribute) and node.attr == "_GATE")
        or (isinstance(node, ast.Call) and name_of(node) == "Cleared" and gated(tree))
    ]
    assert stamping == []


def test_the_guard_catches_a_caller_that_skips_the_gate(tmp_path, monkeypatch):
    # A new model caller written the way the old ones were: its prompt has no sent=.
    (tmp_path / "upkeep").mkdir()
    (tmp_path / "upkeep" / "tidy.py").write_text(
        "from memstore.llm.client import Prompt\n"
        "def tidy(client, facts):\n"
        "    return client.complete(Prompt(system='s', user='\\n'.join(facts)), max_tokens=9)\n"
    )
    monkeypatch.setitem(globals(), "MEMSTORE", tmp_path)
    with pytest.raises(AssertionError, match="tidy.py:3 Prompt"):
        test_every_prompt_and_every_prompt_builder_call_carries_what_the_gate_cleared()
