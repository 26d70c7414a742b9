"""How the prompt preview shows a bot's memory section: its blocks and slices, and whether it is
fresh.

Pure: no queries, no file I/O (as every presenter)."""

from dataclasses import dataclass, field, replace

from memoryconsole.web.presenters.common import plural
from memstore.facts.records import StoredFact
from memstore.prompt.compose import Block, PromptSection, Slice
from memstore.prompt.shape import entry_cut
from memstore.vocabulary import tokens_estimate


@dataclass(frozen=True, slots=True)
class SliceView:
    """One budgeted part of a prompt block as the preview shows it."""

    label: str
    slice: Slice
    left_out: str  # "Left out: 3 past the character budget, 2 past the 30-fact cap." or ""
    size: str = ""  # "312 of 4000 characters, about 78 of 1000 tokens"
    shown: list[StoredFact] = field(default_factory=list)  # as the prompt shows them (cut)


@dataclass(frozen=True, slots=True)
class BlockView:
    """One block of the prompt preview with its parts."""

    block: Block
    slices: list[SliceView]
    hidden: str = ""  # "1 hidden fact left out: hidden facts never go into a prompt." or ""


def prompt_blocks(
    section: PromptSection | None, hidden: dict[str, int] | None = None
) -> list[BlockView]:
    """The preview's blocks, each with its profile and "recently" parts, what they left out,
    and the hidden facts of its scope that were left out too."""
    if section is None:
        return []
    views = []
    for b in section.blocks:
        n = (hidden or {}).get(b.scope, 0)
        note = (
            f"{n} hidden {plural(n, 'fact', 'facts')} left out: hidden facts never go into a prompt."
            if n
            else ""
        )
        if b.cut_at:  # the `seed` shape: one category
            slices = [_entries_view(b)]
        else:
            slices = [_slice_view("Profile", b.profile), _slice_view("Recently", b.recent)]
        views.append(BlockView(b, slices, note))
    return views


def _entries_view(block: Block) -> SliceView:
    part = block.profile
    reasons = []
    if part.past_count:
        reasons.append(f"{part.past_count} past the {part.budget.facts}-entry cap")
    if block.shortened:
        n = block.shortened
        reasons.append(
            f"{n} {plural(n, 'entry', 'entries')} shortened to {block.cut_at} characters"
        )
    left_out = f"Left out: {', '.join(reasons)}." if reasons else ""
    size = f"{part.used} characters, about {tokens_estimate(part.used)} tokens"
    shown = [replace(f, text=entry_cut(f.text, block.cut_at)) for f in part.facts]
    return SliceView("Entries", part, left_out, size, shown)


def _slice_view(label: str, part: Slice) -> SliceView:
    reasons = []
    if part.past_chars:
        reasons.append(f"{part.past_chars} past the character budget")
    if part.past_count:
        reasons.append(f"{part.past_count} past the {part.budget.facts}-fact cap")
    left_out = f"Left out: {', '.join(reasons)}." if reasons else ""
    budget = part.budget.chars
    size = (
        f"{part.used} of {budget} characters, "
        f"about {tokens_estimate(part.used)} of {tokens_estimate(budget)} tokens"
    )
    return SliceView(label, part, left_out, size, part.facts)


def prompt_size(text: str) -> str:
    """The whole text's size: "1234 characters, about 309 tokens"."""
    return f"{len(text)} characters, about {tokens_estimate(len(text))} tokens"


def prompt_freshness(stale: bool, memory: str) -> str:
    """The preview's warning when the section was not built from the files as they are now."""
    if memory == "unavailable":
        return "Memory could not be read within the time budget: the bot would get no memory."
    if stale:
        return (
            "The files could not be synced within the time budget (another writer held the "
            "lock, or the disk was slow): this is the index as it stood. Reload to try again."
        )
    return ""


def prompt_refused(error: Exception) -> str:
    """Why the preview shows no section: the API refuses this bot's call from that room too."""
    return (
        f"{error} The API refuses this bot's calls from that direct room (403 {error.code}), "
        "so it gets no memory section there."
    )
