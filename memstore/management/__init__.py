"""The `manage.py` commands and what they share: the demo workspace, progress bars, controls."""
