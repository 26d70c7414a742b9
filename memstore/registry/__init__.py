"""Who there is, and what the files do not hold.

bots           bots and their projects
people         people and the bots that may act for them
tokens         bots' API tokens
grants         what a token may do (memory:read, memory:write) and project membership (read,
               read_write): the one rule a write passes, and its refusal
generation     the authorization generation (a revoke or unlink seen by every worker)
oauth_clients  MCP clients' OAuth registrations and requests
oauth          the connections people allowed, and their codes and tokens
redirect_uris  redirect URIs read as a browser reads them (WHATWG), and the loopback rule
rate_limits    fixed-window limits per client address on the open OAuth endpoints
"""
