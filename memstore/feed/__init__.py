"""The change feed: what changed in memory, for bots that coordinate on it.

audience   who may see an event: a room's read rules, a webhook endpoint's
read       the feed a bot reads after a cursor (GET /api/v1/changes, the MCP `changes` tool)
signing    the webhooks' signature (HMAC-SHA256 over `timestamp.body`), made and checked
endpoints  webhook endpoints staff register for a bot or a project; the delivery log
dispatch   which endpoint gets which event; sending one delivery
jobs       the dispatch and delivery jobs on the durable queue, retried with backoff

The events themselves are numbered from the shards' histories by `memstore.index.events`.
"""
