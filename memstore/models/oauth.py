"""OAuth 2.1 for MCP clients: registered clients, the connections people consented to, the
one-time authorization codes and the access and refresh tokens.

Like bot tokens, codes and tokens are stored only as SHA-256 digests. These rows are
configuration, not index: `reindex` leaves them alone.
"""

from django.conf import settings
from django.db import models

from memstore.models.registry import Bot


class OAuthClient(models.Model):
    """A client that registered itself (RFC 7591): a public client, identified by `client_id`,
    allowed to send people back only to the redirect URIs it registered."""

    client_id = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=120, blank=True)
    redirect_uris = models.JSONField(default=list)
    metadata = models.JSONField(default=dict)  # what it sent, for people to see
    created_at = models.DateTimeField(auto_now_add=True)


class OAuthGrant(models.Model):
    """A connection a signed-in person allowed: this client acts as `bot` with these scopes,
    optionally bound to one room (and, in a direct room, one person) so its tools need no room
    arguments. Revoking it ends every token issued under it."""

    client = models.ForeignKey(OAuthClient, on_delete=models.CASCADE, related_name="grants")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="oauth_grants")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oauth_grants"
    )
    scopes = models.JSONField(default=list)
    resource = models.CharField(max_length=500)
    room_id = models.CharField(max_length=64, blank=True)
    room_kind = models.CharField(max_length=16, blank=True)
    person = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)


class OAuthCode(models.Model):
    """A one-time authorization code with its PKCE challenge (S256) and redirect URI."""

    grant = models.ForeignKey(OAuthGrant, on_delete=models.CASCADE, related_name="codes")
    digest = models.CharField(max_length=64, unique=True)
    challenge = models.CharField(max_length=128)
    redirect_uri = models.CharField(max_length=2000)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)


class OAuthToken(models.Model):
    """An access token (short-lived) or a refresh token (rotated on every use: a used one
    presented again revokes the whole grant)."""

    ACCESS = "access"
    REFRESH = "refresh"

    grant = models.ForeignKey(OAuthGrant, on_delete=models.CASCADE, related_name="tokens")
    kind = models.CharField(max_length=8, choices=[(ACCESS, ACCESS), (REFRESH, REFRESH)])
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)  # a refresh token, once rotated
    revoked_at = models.DateTimeField(null=True, blank=True)


class OAuthRateWindow(models.Model):
    """How many requests one address sent one OAuth endpoint in one fixed window (`key` names
    all three); windows past their end are dropped as new ones open."""

    key = models.CharField(max_length=200, unique=True)
    count = models.IntegerField(default=0)
    window_end = models.DateTimeField(db_index=True)
