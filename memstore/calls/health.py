"""The bots' door for health: the server's readiness, a bot's record, its health report and
the fixes a bot may apply to it."""

from memstore.registry.bots import bot_get
from memstore.upkeep.health import KINDS, bot_health_fix
from memstore.upkeep.health_snapshots import BotHealth, bot_health
from memstore.upkeep.readiness import server_health

__all__ = ["KINDS", "BotHealth", "bot_get", "bot_health", "bot_health_fix", "server_health"]
