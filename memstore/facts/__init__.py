"""The truth on disk. Nothing here touches the index.

markdown  the fact-line grammar
paths     scopes, shards and where their files live under MEMORY_ROOT
files     reading memory files and replacing them atomically, never over a hand edit
snapshots what one version of a file is: its signature, its text, ChangedOnDisk
exchange  swapping a new file in for the one read, atomically, under a write lease (Linux)
parsed    the files this process parsed last, remembered by their exact text
locks     the per-bot write lock
history   each shard's change history (`history.jsonl` beside its memory)
activity  what happened to memory, read back from the histories for people
versions  a fact's versions
ranking   the pure ranking rules
validity  when a fact stops being true (`until`) and when to look at it again (`review`)
records   the read-side record of a fact every selector and service returns
derived   the links that make a line a copy of another (`from=`, `about=`, supersedes)
symlinks  folders opened one name at a time, never through a symbolic link
paging    the one page type of every paged list
volume    the memory volume's room for writes
"""
