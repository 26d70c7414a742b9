"""MCP recall with explain and rerank, over a real socket: the same breakdown as the API."""

from memstore.recall import rerankers
from tests.helpers import MCP_DIRECT, mcp_http_client, run_async
from tests.memstore.recall.test_rerank import FakeReranker


def test_recall_explains_and_reranks_over_mcp(live_server, scout_token, settings):
    settings.EMBEDDINGS = "none"
    server = FakeReranker(prefer=["Evening"])
    settings.RECALL_RERANK, settings.RECALL_RERANK_URL = "openai:fake", server.url
    rerankers.reranker_load.cache_clear()

    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            for text in ("Morning meetings run long", "Evening meetings are short"):
                await client.call_tool("remember", {**MCP_DIRECT, "text": text})
            plain = await client.call_tool(
                "recall", {**MCP_DIRECT, "query": "meetings", "rerank": False}
            )
            why = await client.call_tool(
                "recall", {**MCP_DIRECT, "query": "meetings", "explain": True}
            )
            return plain.structured_content, why.structured_content

    try:
        plain, why = run_async(step)
    finally:
        server.close()
        rerankers.reranker_load.cache_clear()
    assert (plain["reranked"], plain["explain"]) == (False, None)
    assert why["reranked"] is True
    assert why["explain"]["terms"] == ["meet"]
    assert [r["terms"] for r in why["explain"]["results"]] == [["meet"], ["meet"]]
    ranks = {
        item["text"]: r["rerank_rank"]
        for item, r in zip(why["items"], why["explain"]["results"], strict=True)
    }
    assert ranks == {"Evening meetings are short": 1, "Morning meetings run long": 2}
