"""The bots' door for export: a bot's own memory files, and everything it may read as one
archive."""

from memstore.privacy.export import bot_own_files, memory_export

__all__ = ["bot_own_files", "memory_export"]
