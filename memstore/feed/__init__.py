"""The change feed: what changed in memory, for bots that coordinate on it.

audience   who may see an event: a room's read rules, a webhook endpoint's
read       the feed a bot reads after a cursor (GET /api/v1/changes, the MCP `changes` tool)

The events themselves are numbered from the shards' histories by `memstore.index.events`.
"""
