"""The MCP front door: the same memory operations as the JSON API, as Model Context Protocol
tools (and two resources), for agents that speak MCP.

    tools.py      the tools (one memstore call each) and the server that lists them
    changes.py    the `changes` tool: the change feed
    feedback.py   the feedback tool (useful, outdated, wrong, do-not-use on a fact)
    resources.py  the resources: the bot's About me note, its prompt section for a room
    calls.py      what the tools share: the caller, room arguments, annotations, error mapping
    http.py       Streamable HTTP at /mcp: bearer token check, then the SDK answers the request
    oauth.py      OAuth 2.1 for /mcp: the metadata documents, registration, token and
                  revocation endpoints (the consent page is a console page,
                  web/views/consent.py)

`manage.py mcp --bot SLUG` serves the same tools over stdio. Nothing here decides what a bot may
read or write: every tool calls the memstore function the matching API handler calls.
"""
