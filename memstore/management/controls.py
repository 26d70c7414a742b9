"""The `manage.py people` subcommands for a person's memory controls, as a mixin the people
command wears (so the registry's subcommands and these live in one command):

people pause PERSON            nothing learned from them; their memory left out of prompts
people resume PERSON           undo a pause
people exclude PERSON TOPIC    a topic bots must not remember about them (any word form)
people include PERSON TOPIC    take a topic off the list
people controls PERSON         their controls and the history of changes

Each change is made by `memstore.rules.controls` as `--by` (default: the operating-system user),
via=command, and recorded in the person's audit history.
"""

import getpass

from memstore.rules.controls import (
    controls_history,
    memory_pause,
    memory_resume,
    person_controls,
    topic_exclude,
    topic_include,
)


class ControlsMixin:
    """do_pause, do_resume, do_exclude, do_include and do_controls for a command that
    dispatches `action` to `do_<action>` (and reports MemstoreError as a CommandError)."""

    def add_control_parsers(self, sub) -> None:
        """Add the controls' subcommands to the command's subparsers."""
        for name, text in (("pause", "pause memory for a person"), ("resume", "resume it")):
            parser = sub.add_parser(name, help=text)
            parser.add_argument("person")
            parser.add_argument("--by", default=None, help="who made the change (for the audit)")
        for name, text in (
            ("exclude", "a topic bots must not remember about the person"),
            ("include", "take a topic off the excluded list"),
        ):
            parser = sub.add_parser(name, help=text)
            parser.add_argument("person")
            parser.add_argument("topic")
            parser.add_argument("--by", default=None, help="who made the change (for the audit)")
        shown = sub.add_parser("controls", help="a person's controls and their history")
        shown.add_argument("person")

    def do_pause(self, *, person: str, by: str | None, **_) -> None:
        self._show(memory_pause(person=person, by=by or getpass.getuser(), via="command"))

    def do_resume(self, *, person: str, by: str | None, **_) -> None:
        self._show(memory_resume(person=person, by=by or getpass.getuser(), via="command"))

    def do_exclude(self, *, person: str, topic: str, by: str | None, **_) -> None:
        by = by or getpass.getuser()
        self._show(topic_exclude(person=person, topic=topic, by=by, via="command"))

    def do_include(self, *, person: str, topic: str, by: str | None, **_) -> None:
        by = by or getpass.getuser()
        self._show(topic_include(person=person, topic=topic, by=by, via="command"))

    def do_controls(self, *, person: str, **_) -> None:
        self._show(person_controls(person=person))
        for change in controls_history(person=person):
            topic = f" {change.topic!r}" if change.topic else ""
            self.stdout.write(f"  {change.at}  {change.by} {change.action}{topic} ({change.via})")

    def _show(self, controls) -> None:
        state = "paused" if controls.paused else "on"
        topics = ", ".join(controls.topics) or "none"
        self.stdout.write(f"{controls.person}: memory {state}; excluded topics: {topics}.")
