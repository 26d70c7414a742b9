"""The console app's `manage.py` commands (demo, mcp), one module each."""
