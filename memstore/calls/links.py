"""The bots' door for links between facts: add, remove, and a fact's neighbourhood."""

from memstore.store.links import Neighbourhood, bot_link_add, bot_link_remove, bot_neighbours

__all__ = ["Neighbourhood", "bot_link_add", "bot_link_remove", "bot_neighbours"]
