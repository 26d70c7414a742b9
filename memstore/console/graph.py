"""The console's graph of links: a fact's neighbourhood, or a bot's whole store, laid out for a
server-rendered SVG (no script, so the CSP holds and it works without JavaScript).

The layout is plain geometry: the centre fact in the middle and its neighbours on rings by hop
(a neighbourhood), or every linked fact on one ring ordered so linked facts sit near each other
(a store). Coordinates are in a 360 x 360 box the SVG scales to any width (390 px phones too);
an edge list beside it says the same in words. No queries happen in the template.
"""

import math
from dataclasses import dataclass

from memstore.console.facts import bot_tabs
from memstore.console.viewer import Viewer
from memstore.facts.paths import Scope
from memstore.store.links import Neighbourhood, neighbours_of, store_graph

SIZE = 360
MAX_NODES = 60
_LABEL = 28


@dataclass(frozen=True, slots=True)
class Node:
    """One fact drawn: where, what it says (short and whole), whether it is the centre."""

    fact_id: str
    x: float
    y: float
    label: str
    text: str
    known: bool  # False: archived, or in memory this page does not show
    centre: bool = False

    @property
    def label_y(self) -> float:
        return round(self.y + 20, 1)

    @property
    def anchor(self) -> str:
        """Labels near an edge of the drawing run inwards, so they are not cut off."""
        if self.x < SIZE * 0.3:
            return "start"
        return "end" if self.x > SIZE * 0.7 else "middle"

    @property
    def label_x(self) -> float:
        shift = {"start": -8, "end": 8, "middle": 0}[self.anchor]
        return round(self.x + shift, 1)


@dataclass(frozen=True, slots=True)
class EdgeLine:
    """One link drawn from node to node, with its words for the list."""

    kind: str
    x1: float
    y1: float
    x2: float
    y2: float
    source: Node
    target: Node


@dataclass(frozen=True, slots=True)
class Graph:
    """What the graph page shows; `left_out`: linked facts not drawn (over MAX_NODES)."""

    nodes: list[Node]
    edges: list[EdgeLine]
    size: int = SIZE
    left_out: int = 0


def bot_scopes(*, bot: str, viewer: Viewer) -> list[Scope]:
    """The scopes of a bot's console page this person may see."""
    return sorted({s for tab in bot_tabs(bot=bot, viewer=viewer, counts=False) for s in tab.scopes})


def fact_graph(*, bot: str, viewer: Viewer, fact_id: str, depth: int = 2) -> Graph:
    """A fact's neighbourhood (links both ways, `depth` hops) among what this person may see."""
    near = neighbours_of(scopes=bot_scopes(bot=bot, viewer=viewer), fact_ids=[fact_id], depth=depth)
    return _rings(near, fact_id)


def bot_graph(*, bot: str, viewer: Viewer) -> Graph:
    """Every link in a bot's memory (as this person may see it), on one ring."""
    return _ring(store_graph(scopes=bot_scopes(bot=bot, viewer=viewer)))


def _node(near: Neighbourhood, fid: str, x: float, y: float, centre: bool = False) -> Node:
    fact = near.facts.get(fid)
    text = fact.text if fact else f"{fid}: archived, or in memory not shown here"
    label = text if len(text) <= _LABEL else text[: _LABEL - 1] + "…"
    return Node(fid, round(x, 1), round(y, 1), label, text, fact is not None, centre)


def _edges(near: Neighbourhood, nodes: dict[str, Node]) -> list[EdgeLine]:
    lines = []
    for edge in near.edges:
        a, b = nodes.get(edge.source), nodes.get(edge.target)
        if a and b:
            lines.append(EdgeLine(edge.kind, a.x, a.y, b.x, b.y, a, b))
    return lines


def _rings(near: Neighbourhood, centre: str) -> Graph:
    hops = {centre: 0}
    frontier = [centre]
    while frontier:
        nxt = []
        for edge in near.edges:
            for a, b in ((edge.source, edge.target), (edge.target, edge.source)):
                if a in frontier and b not in hops:
                    hops[b] = hops[a] + 1
                    nxt.append(b)
        frontier = nxt
    ids = sorted(hops, key=lambda f: (hops[f], f))[:MAX_NODES]
    nodes: dict[str, Node] = {}
    half = SIZE / 2
    for ring in sorted({hops[f] for f in ids}):
        members = [f for f in ids if hops[f] == ring]
        radius = 0 if ring == 0 else min(half - 40, 70 * ring)
        for i, fid in enumerate(members):
            angle = 2 * math.pi * i / len(members) - math.pi / 2 + ring * 0.4
            x, y = half + radius * math.cos(angle), half + radius * math.sin(angle)
            nodes[fid] = _node(near, fid, x, y, centre=ring == 0)
    return Graph(list(nodes.values()), _edges(near, nodes), left_out=len(hops) - len(ids))


def _ring(near: Neighbourhood) -> Graph:
    # Depth-first order over the links, so that linked facts are neighbours on the ring.
    adjacent: dict[str, list[str]] = {}
    for edge in near.edges:
        adjacent.setdefault(edge.source, []).append(edge.target)
        adjacent.setdefault(edge.target, []).append(edge.source)
    order: list[str] = []
    for start in sorted(adjacent, key=lambda f: (-len(adjacent[f]), f)):
        stack = [start]
        while stack:
            fid = stack.pop()
            if fid in order:
                continue
            order.append(fid)
            stack.extend(sorted(set(adjacent[fid]) - set(order), reverse=True))
    shown = order[:MAX_NODES]
    half, radius = SIZE / 2, SIZE / 2 - 40
    nodes = {}
    for i, fid in enumerate(shown):
        angle = 2 * math.pi * i / max(1, len(shown)) - math.pi / 2
        nodes[fid] = _node(
            near, fid, half + radius * math.cos(angle), half + radius * math.sin(angle)
        )
    return Graph(list(nodes.values()), _edges(near, nodes), left_out=len(order) - len(shown))
