"""One LangGraph turn for the conformance suite: a prebuilt ReAct agent with the adapter's
tools, pre-model node and post-reply node; argv: the room (JSON) and the person's message."""

import json
import os
import sys

from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent
from memory_console_langgraph import MemoryConsole

room, message = json.loads(sys.argv[1]), sys.argv[2]
memory = MemoryConsole(os.environ["MEMORY_CONSOLE_URL"], os.environ["MEMORY_CONSOLE_TOKEN"])
model = ChatOpenAI(
    base_url=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"], model="scripted"
)
agent = create_react_agent(
    model, memory.tools, pre_model_hook=memory.prompt_node, post_model_hook=memory.report_node
)
config = {
    "configurable": {
        "thread_id": room["room_id"],
        "room_kind": room["room_kind"],
        "user_id": room.get("person"),
        "projects": room.get("projects", []),
    }
}
result = agent.invoke({"messages": [("user", message)]}, config)
print(json.dumps({"reply": result["messages"][-1].text}))
