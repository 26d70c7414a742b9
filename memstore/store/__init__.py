"""The one write path and the reads: remember, forget, edit, restore and clear through
`services.file_rewrite` (`services`), every read synced first (`selectors`), links between facts
(`links`)."""
