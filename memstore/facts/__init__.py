"""The truth on disk: the fact-line grammar (`markdown`), scopes, shards and where their files
live (`paths`), reading and atomically replacing files (`files`), the per-bot lock (`locks`), each
shard's change history (`history`, `activity`, `versions`), the ranking rules (`ranking`) and the
read-side record of a fact (`records`). Nothing here touches the index."""
