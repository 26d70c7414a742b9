"""Memory sources over MCP (the official SDK over a real socket): prompt_section carries the
section's digest, and prompt_section, recall and report_exchange feed the same records the API
does (retrieved, injected, cited), which the console shows under the exchange."""

from memstore.console.sources import exchange_sources
from memstore.console.viewer import Viewer
from memstore.facts.markdown import fact_identity
from tests.helpers import MCP_DIRECT, mcp_http_client, run_async, write_memory

OWN = "Keeps release notes short"
ALICE = "Alice reviews releases on Fridays"
NEVER_SAVED = "Alice's desk is by the window"


def test_mcp_tools_feed_the_memory_sources(live_server, scout_token, memory_root):
    write_memory(memory_root, "agents/scout/memory/profile.md", f"- (2026-11-01) {OWN}")
    write_memory(
        memory_root, "users/alice/memory/by-agent/scout/profile.md", f"- (2026-11-02) {ALICE}"
    )

    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            section = (await client.call_tool("prompt_section", MCP_DIRECT)).structured_content
            found = await client.call_tool("recall", {**MCP_DIRECT, "query": "Fridays"})
            reported = await client.call_tool(
                "report_exchange",
                {
                    **MCP_DIRECT,
                    "message": "When does Alice review releases?",
                    "reply": "On Fridays.",
                    "message_id": "m1",
                    "reply_id": "r1",
                    "recalled": [ALICE, NEVER_SAVED],
                    "digest": section["digest"],
                },
            )
            return section, found.structured_content, reported.structured_content

    section, found, reported = run_async(step)
    assert [f["text"] for f in found["items"]] == [ALICE]
    assert reported["sources"] == {
        "retrieved": 1,
        "injected": 2,
        "cited": 2,
        "digest": section["digest"],
        "note": "",
    }
    sources = exchange_sources(exchange_id=int(reported["id"]), viewer=Viewer(person="alice"))

    def shown(items):
        return sorted(s.row.fact.text if s.row else f"gone {s.fact_id}" for s in items)

    assert (shown(sources.retrieved), shown(sources.injected), shown(sources.cited)) == (
        [ALICE],
        [ALICE, OWN],
        [ALICE, f"gone {fact_identity(NEVER_SAVED)}"],
    )
