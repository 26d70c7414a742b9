"""Every `manage.py` command of the memory store, one module each."""
