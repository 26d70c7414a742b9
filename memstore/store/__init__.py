"""The one write path and the reads: remember, forget, edit, restore and clear (`services`)
through `rewrite.file_rewrite` (`rewrite`), what a write reads as it takes its lock
(`prewrite`), every read synced first (`selectors`), links between facts (`links`)."""
