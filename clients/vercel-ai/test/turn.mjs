// One Vercel AI SDK turn for the conformance suite (tests/adapters): generateText with the
// adapter's tools and middleware, the model an OpenAI-compatible endpoint (the scripted one);
// argv: the room (JSON) and the person's message. Prints {"reply": ...}.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, wrapLanguageModel } from "ai";
import { MemoryConsole } from "memory-console-vercel-ai";

const [roomJson, message] = process.argv.slice(2);
const room = JSON.parse(roomJson);
const memory = new MemoryConsole({
  baseUrl: process.env.MEMORY_CONSOLE_URL,
  token: process.env.MEMORY_CONSOLE_TOKEN,
  room: { roomId: room.room_id, roomKind: room.room_kind, person: room.person, projects: room.projects },
});
const provider = createOpenAICompatible({
  name: "scripted",
  baseURL: process.env.OPENAI_BASE_URL,
  apiKey: process.env.OPENAI_API_KEY,
});
const model = wrapLanguageModel({ model: provider("scripted"), middleware: memory.middleware() });
const { text } = await generateText({
  model,
  tools: memory.tools(),
  stopWhen: stepCountIs(5),
  prompt: message,
  maxRetries: 0,
});
console.log(JSON.stringify({ reply: text }));
