"""Who there is: bots and their projects (`bots`), people and the bots that may act for them
(`people`), and bots' API tokens (`tokens`). What the files do not hold."""
