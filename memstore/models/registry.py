"""What the files do not hold: bots, their API tokens, project membership, people's settings.

These rows are configuration, not index: `reindex` leaves them alone.
"""

from django.conf import settings
from django.db import models


class Bot(models.Model):
    """An agent with its own memory; `in_groups` turns on the team-wide wording in prompts;
    `app`: an app (a CRM sync, an importer) whose token writes workspace memory (scope
    server); `private_memory`: its own memory is read only in its own rooms, never in groups."""

    slug = models.SlugField(max_length=63, unique=True)
    display_name = models.CharField(max_length=120, blank=True)
    in_groups = models.BooleanField(default=False)
    app = models.BooleanField(default=False)
    private_memory = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class ProjectMember(models.Model):
    """A bot working on a project: it reads that project's memory, and writes it when its
    `access` is read_write (`memstore.registry.grants`)."""

    project = models.SlugField(max_length=63)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="projects")
    access = models.CharField(max_length=10, default="read_write")  # read | read_write
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "bot"], name="unique_member")]
        ordering = ["project"]


def all_grants() -> list[str]:
    """Every grant: a token made before grants existed keeps full access."""
    return ["memory:read", "memory:write"]


class BotToken(models.Model):
    """A bearer token for one bot, stored only as a SHA-256 hash, with its grants (`scopes`,
    the OAuth scope words: memory:read, memory:write)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=80, blank=True)
    prefix = models.CharField(max_length=12)  # shown in listings so people can tell tokens apart
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    scopes = models.JSONField(default=all_grants)


class PersonSettings(models.Model):
    """A person's memory controls: pause learning, and topics bots must not remember."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_settings"
    )
    paused = models.BooleanField(default=False)
    excluded_topics = models.JSONField(default=list)  # list of lower-case words or phrases
