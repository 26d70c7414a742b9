"""Who there is: bots and their projects (`bots`), people and the bots that may act for them
(`people`), bots' API tokens (`tokens`), and MCP clients signed in with OAuth: their
registrations and requests (`oauth_clients`), the connections people allowed and their codes
and tokens (`oauth`). What the files do not hold."""
