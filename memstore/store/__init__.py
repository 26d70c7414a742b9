"""The one write path and the reads.

services   remember, forget, edit, restore and clear
rewrite    `file_rewrite`, the one write path under every service
changes    what the write services share: a line's history change, the files to rewrite first
prewrite   what a write reads as it takes its lock, and checks then
in_room    a save for a bot in a room (the bots' door, the learner, the importers)
held       saves the gate held for review (instruction-shaped text), kept as proposals
repeats    lessons saved again once stored (a repeat collapses into the fact), recorded
selectors  every read, synced first
links      links between facts
feedback   useful, outdated, wrong, do-not-use and a person's confirm, written on every copy
sharing    sharing a private memory with the workspace
audit      the workspace's audit trail
"""
