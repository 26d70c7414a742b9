"""The Claude Agent SDK hooks for the conformance suite, called as a session calls them (the
`claude` CLI that runs a session needs Anthropic's service, out of reach here): two prompts and
three stops; argv: the room as JSON. Prints what each hook answered."""

import asyncio
import json
import os
import sys

from memory_console_claude import MemoryConsole, room_settings

room = json.loads(sys.argv[1])
memory = MemoryConsole(
    os.environ["MEMORY_CONSOLE_URL"],
    os.environ["MEMORY_CONSOLE_TOKEN"],
    room_settings(
        room["room_id"],
        kind=room["room_kind"],
        person=room.get("person"),
        projects=room.get("projects", []),
    ),  # fmt: skip
)
session = {"session_id": "s-1", "transcript_path": "", "cwd": "."}


async def main() -> dict:
    [prompt_hook] = memory.hooks()["UserPromptSubmit"][0].hooks
    [stop_hook] = memory.hooks()["Stop"][0].hooks
    prompt = {**session, "hook_event_name": "UserPromptSubmit", "prompt": "Where do we meet?"}
    stop = {**session, "hook_event_name": "Stop", "stop_hook_active": False}
    seen = {"prompt": await prompt_hook(prompt, None, {"signal": None})}
    seen["stopped_without_reply"] = await stop_hook(stop, None, {"signal": None})
    await prompt_hook({**prompt, "prompt": "And when?"}, None, {"signal": None})
    reply = {**stop, "last_assistant_message": "At the rooftop, at 7."}
    seen["stopped"] = await stop_hook(reply, None, {"signal": None})
    seen["stopped_again"] = await stop_hook(reply, None, {"signal": None})  # no new prompt
    return seen


print(json.dumps(asyncio.run(main())))
