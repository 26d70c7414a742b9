"""Words every console page shares: a scope's label, an error's title, who wrote a fact and how,
and the small constants the other presenters use.

Pure: no queries, no file I/O (as every presenter)."""

from memstore.console.facts import TABS
from memstore.facts.paths import Scope

NEW_DAYS = 7  # a fact this many days old or newer is marked "new"


SHORT_CHARS = 40  # a fact's text in a button's accessible name


TAB_LABELS = dict(
    zip(
        TABS,
        (
            "Own memory",
            "About people",
            "Projects",
            "Legacy rooms",
            "Private conversations",
            "Shared with workspace",
        ),
        strict=True,
    )
)
# How a list of facts may be grouped (About me, a bot's page): value -> label.
GROUPINGS = {"bot": "bot", "room": "conversation", "type": "type"}


ERROR_TITLES = {"conflict": "Changed meanwhile", "unreadable_file": "A memory file is unreadable"}


STATUS_TITLES = {403: "Not allowed", 404: "Not found"}


# Who reads a private conversation's memory (docs/api.md, "A private conversation").
PRIVATE_READERS = "read only in that room, by the bots talking in it; in the console, by staff"


def scope_label(scope_key: str, *, private: bool = False) -> str:
    """How a scope is named for people: "own", "about sam", "project launch", "room general"
    (legacy room memory), "private conversation board" (`private`: the room is bound as one)."""
    scope = Scope.parse(scope_key)
    if private and scope.kind == "room":
        return f"private conversation {scope.name}"
    labels = {
        "bot": "own",
        "user": f"about {scope.name}",
        "project": f"project {scope.name}",
        "server": "workspace",
    }
    return labels.get(scope.kind, f"room {scope.name}")


def error_title(code: str, status: int) -> str:
    """The heading of the console's error page for an error's code and status."""
    return ERROR_TITLES.get(code) or STATUS_TITLES.get(status, "Not accepted")


def origin(by: str, via: str, acting: str = "") -> str:
    """Who wrote something and how: "by ann via console", "by ava via tool for sam" (the person
    who acted through the bot); "" when neither is known."""
    said = [f"by {by}"] * bool(by) + [f"via {via}"] * bool(via)
    return " ".join(said + [f"for {acting}"] * bool(acting and said))


def plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many
