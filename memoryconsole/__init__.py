"""The Django project: settings, URLs, and the two front doors (the bots' API and the console)."""
