"""Forgetting for good and taking memory away.

erase          the one erasure every front door uses
derived        which copies made from a fact count, and which an erase may reach
target         what is being erased (ids, texts, a person)
reach          how far one erase may go
place          the shape of a place that can hold a fact's text, and what an erase carries
stores         every place that can hold a fact's text, listed once
file_stores    the memory folder's places (files, histories, exports)
record_stores  the database's places (index rows, vectors, proposals, learning records)
repeat_store   the database's record of lessons said again
forgotten      verify-forgotten: where a fact still is
export         a bot's memory as an archive
person_export  a person's memory as a download
"""
