"""The + / − note of changes since an earlier section: pure, like `memstore.prompt.compose`.

Owns: `changes_compose`, which diffs a section against an earlier one's text, and
`fact_lines`, the lines of a section's text that are fact lines. A `seed` block's entry cut to
its length ("…") is not the fact's own line: `section.prompt_changes` finds its fact by the
text it starts with.

Does not: read memory (`section.prompt_changes` reads which facts are still there).
"""

from dataclasses import dataclass, field

from memstore.facts.markdown import parse_line
from memstore.prompt.compose import PromptSection, line_unmarked


@dataclass(frozen=True, slots=True)
class PromptChanges:
    """Fact lines added to and removed from memory since an earlier section, and those that
    only left the section: still in memory, pushed out of its budget by others."""

    added: list[str]
    removed: list[str]
    text: str  # "" when nothing changed
    left: list[str] = field(default_factory=list)


def fact_lines(text: str) -> list[str]:
    """The lines of a section's text that are fact lines."""
    return [line for line in text.splitlines() if parse_line(line) is not None]


def changes_compose(*, previous: str, current: PromptSection, present: set[str]) -> PromptChanges:
    """What changed since `previous`: fact lines the current section adds, earlier lines whose
    fact is no longer in memory (`removed`: forgotten, erased, expired or hidden; `present`:
    identities still there, hidden ones excluded), and earlier lines whose fact is still in
    memory but no longer in the section (`left`: pushed out of a budget by other facts)."""
    before = fact_lines(previous)
    now = fact_lines(current.text)
    seen_before, seen_now = set(before), set(now)
    added = list(dict.fromkeys(line for line in now if line not in seen_before))
    removed: dict[str, None] = {}
    left: dict[str, None] = {}
    for line in before:
        if line not in seen_now:
            still = parse_line(line_unmarked(line)).identity in present
            (left if still else removed)[line] = None
    if not added and not removed and not left:
        return PromptChanges(added=[], removed=[], text="")
    notes = ["Memory changes since your memory section was built:"]
    notes += ["+ " + line.removeprefix("- ") for line in added]
    notes += ["\u2212 " + line.removeprefix("- ") for line in removed]
    if left:
        notes.append("Left the section for lack of room, still in memory (recall finds them):")
        notes += ["~ " + line.removeprefix("- ") for line in left]
    text = "\n".join(notes) + "\n"
    return PromptChanges(added=added, removed=list(removed), text=text, left=list(left))
