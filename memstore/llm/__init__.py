"""The model client every model call shares (`client`: learning, upkeep, synthesis, summarize),
its settings (`config`) and the workspace's daily token budget (`budget`)."""
