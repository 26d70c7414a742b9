"""The prompt's memory section.

section      the blocks a room's prompt holds and the change notes sent mid-conversation
compose      the section composed from its blocks, within their budgets
shape        the section's shape: `blocks` (budgeted parts) or `seed` (one capped category a block)
changes      the + / − note of what changed since an earlier section
indexed      a block read straight from the index: each file's best rows, never a whole sort
cache        the blocks, remembered per process while their scope is unchanged
incremental  a scope's block kept up to date by what changed, not by re-sorting the scope
answer       the whole section (notes, then blocks) within the reads' time budget
notes        always-on notes
lessons      lessons for agents, proposed for their About me note
asof         what a bot knew on a date
"""
