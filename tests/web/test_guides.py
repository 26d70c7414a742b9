"""The guides the package carries, served to staff at /docs/: listed, rendered with links
between them kept, raw HTML shown as text; nobody else sees them."""

import pytest

pytestmark = pytest.mark.django_db


def test_staff_read_the_guides(boss):
    index = boss.get("/docs/").content.decode()
    assert 'href="/docs/mcp/"' in index and 'href="/docs/readme/"' in index
    mcp = boss.get("/docs/mcp/").content.decode()
    assert "<h1>" in mcp and "<table>" in boss.get("/docs/readme/").content.decode()


def test_links_between_guides_point_at_their_pages(boss):
    readme = boss.get("/docs/readme/").content.decode()
    assert 'href="/docs/mcp/"' in readme  # README links docs/mcp.md


def test_unknown_names_and_path_tricks_are_not_found(boss):
    for name in ("nope", "..%2Fpyproject", "MCP"):
        assert boss.get(f"/docs/{name}/").status_code == 404


def test_people_without_staff_do_not_see_them(ann):
    assert ann.get("/docs/").status_code == 403
    assert ann.get("/docs/mcp/").status_code == 403
    assert "Guides" not in ann.get("/").content.decode()
