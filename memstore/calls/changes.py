"""The bots' door for the change feed: every add, edit, supersede, forget, erase and restore in
what the call's room may read, after a cursor (`memstore.feed.read`)."""

from memstore.feed.read import DEFAULT_LIMIT, MAX_LIMIT, ChangesPage, FeedEvent, changes_since

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "ChangesPage", "FeedEvent", "changes_since"]
