"""The people registry and what it vouches for: people (tied to console accounts), which bots
may act for whom, the kind (and person) each room was first named with, and who may edit a bot
in the console.

These rows are configuration, not index: `reindex` leaves them alone. Rules live in
`memstore.registry.people` and `memstore.rooms`; these are the rows only.
"""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from memstore.models.registry import Bot


class Person(models.Model):
    """A person bots may talk with: `name` is the one spelling used in folders and headers
    (unique whatever the case), `user` their console account, if they have one."""

    name = models.CharField(max_length=64)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="person",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(Lower("name"), name="person_name_any_case")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class PersonLink(models.Model):
    """A bot that may act for a person (read and write their user memory in direct rooms)."""

    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="links")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="people")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["person", "bot"], name="unique_link")]


class RoomBinding(models.Model):
    """What the first call naming a room said it is: its kind and, for a direct room, its
    person (canonical name). Room ids are workspace-wide, like legacy room folders."""

    room_id = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=16)
    person = models.CharField(max_length=64, blank=True)
    first_bot = models.CharField(max_length=63)
    # A private group conversation (a private channel, not a group DM): memory saved there
    # belongs to it. Fixed by the first call too, and sticky: later calls need not repeat it.
    private = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["room_id"]


class BotEditor(models.Model):
    """A console account staff allowed to edit, delete, restore and clear one bot's memory."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bot_edits"
    )
    # A slug, not a key: the console also shows bots that only have memory on disk.
    bot = models.SlugField(max_length=63)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "bot"], name="unique_editor")]
