"""Django app config for the console (so its templates and static files are found)."""

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "memoryconsole.web"
    label = "web"
