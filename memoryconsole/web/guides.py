"""The guides the package carries (`docs/*.md` and the README), rendered for the console's
`/docs/` pages: which there are, and one as HTML with its links between guides kept.

Raw HTML in a guide is shown as text, never run (the renderer's `html` option is off).
"""

import re
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

from memoryconsole.config import assets_dir

_PACKAGE = Path(__file__).resolve().parents[1]
_LINK = re.compile(r'href="(?:\.\./|docs/)?([a-z0-9-]+)\.md(#[^"]*)?"')
_TITLE = re.compile(r"^#\s+(.+)$", re.MULTILINE)


def docs_dir() -> Path:
    """`docs/` beside the code in a checkout, inside the package in a wheel."""
    return assets_dir(_PACKAGE) / "docs"


def guides() -> list[tuple[str, str]]:
    """(name, title) of every guide, the README first."""
    found = [("readme", "Memory Console (README)")] if _source("readme") else []
    for path in sorted(docs_dir().glob("*.md")):
        match = _TITLE.search(path.read_text(encoding="utf-8"))
        found.append((path.stem, match.group(1) if match else path.stem))
    return found


def _source(name: str) -> Path | None:
    if name == "readme":
        path = assets_dir(_PACKAGE) / "README.md"
        return path if path.is_file() else None
    if not re.fullmatch(r"[a-z0-9-]+", name):
        return None
    path = docs_dir() / f"{name}.md"
    return path if path.is_file() else None


@cache
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def guide_html(name: str) -> str | None:
    """The guide as HTML (links to other guides point at their `/docs/` page), or None."""
    path = _source(name)
    if path is None:
        return None
    html = _renderer().render(path.read_text(encoding="utf-8"))
    return _LINK.sub(lambda m: f'href="/docs/{m.group(1).lower()}/{m.group(2) or ""}"', html)
