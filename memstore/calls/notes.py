"""The bots' door for always-on notes: read, save, their versions, and the notes a room gets."""

from memstore.prompt.notes import note_read, note_save, note_versions, notes_for

__all__ = ["note_read", "note_save", "note_versions", "notes_for"]
