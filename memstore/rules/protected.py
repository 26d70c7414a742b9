"""Which facts were saved on purpose: the one rule every automatic writer obeys (upkeep and
synthesis through `memstore.upkeep.guard`, the learner's `remove:`). Pure: no I/O.

A fact counts as machine-made only when its line says a machine made it (`via=` one of
`AUTOMATIC_VIAS`: the learner, synthesis) and it is not pinned. A line without `via` was saved by
a bot's explicit call, a tool, the console, an import or a person's editor: protected. Callers
check the line as it is in the file, under the bot's lock, not as an index row remembered it.
"""

from collections.abc import Mapping

from memstore.vocabulary import AUTOMATIC_VIAS

_FALSE = {"", "0", "false", "no", "off"}


def fact_protected(meta: Mapping[str, str]) -> bool:
    """Whether a fact with this metadata was saved on purpose (pinned, or not machine-made)."""
    if str(meta.get("pin", "")).strip().lower() not in _FALSE:
        return True
    return meta.get("via", "") not in AUTOMATIC_VIAS


# Saved because someone asked: a bot's explicit API or tool call, or a person in the console.
REQUESTED_VIAS = ("api", "tool", "console")


def fact_requested(meta: Mapping[str, str], via: str = "") -> bool:
    """Whether a fact was saved on request (the console's pin): pinned, or saved by a bot's
    explicit call or a person (`via`: how its line was written, from the line or its history),
    as opposed to captured automatically by the learner or synthesis."""
    if str(meta.get("pin", "")).strip().lower() not in _FALSE:
        return True
    return (meta.get("via") or via) in REQUESTED_VIAS
