"""The console app's `manage.py` commands."""
