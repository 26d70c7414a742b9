"""What a bot may do from the room it is talking in (`actions`: the `bot_*` use cases the API
and MCP call), each against the Context its call opened."""
