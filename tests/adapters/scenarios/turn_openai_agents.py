"""One OpenAI Agents SDK turn for the conformance suite: an agent with the adapter's tools,
instructions and hooks, on the Chat Completions model; argv: the room (JSON) and the message."""

import json
import os
import sys

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from memory_console_agents import MemoryConsole, room_settings
from openai import AsyncOpenAI

set_tracing_disabled(True)  # no traces leave the machine
room, message = json.loads(sys.argv[1]), sys.argv[2]
memory = MemoryConsole(os.environ["MEMORY_CONSOLE_URL"], os.environ["MEMORY_CONSOLE_TOKEN"])
model = OpenAIChatCompletionsModel(
    model="scripted",
    openai_client=AsyncOpenAI(
        base_url=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"]
    ),
)
agent = Agent(
    name="Scout",
    instructions=memory.instructions("You are Scout."),
    tools=memory.tools,
    model=model,
)
context = room_settings(
    room["room_id"], kind=room["room_kind"], person=room.get("person"),
    projects=room.get("projects", []),
)  # fmt: skip
result = Runner.run_sync(agent, message, context=context, hooks=memory.hooks)
print(json.dumps({"reply": result.final_output}))
