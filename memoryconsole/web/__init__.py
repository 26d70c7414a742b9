"""The people's console: server-rendered pages with HTMX."""
