/**
 * memory-console-vercel-ai: Memory Console for Vercel AI SDK apps, over the typed client.
 *
 *     const memory = new MemoryConsole({ baseUrl, token, room: { roomId: "dm-42", person: "alice" } });
 *     const model = wrapLanguageModel({ model: provider("gpt-4.1-mini"), middleware: memory.middleware() });
 *     const { text } = await generateText({ model, tools: memory.tools(), stopWhen: stepCountIs(5), prompt });
 *
 * The room is given once, when the adapter is made: `roomKind` defaults to direct when a person
 * is named and to group when not. The middleware puts the memory section in as a system message
 * before each model call and, once a call ends with a final reply (no tool calls), reports the
 * person's last message and that reply. Everything fails open: without Memory Console the app
 * runs without memory (the section is left out, a report dropped, a tool answers what went wrong).
 */

import { tool, type LanguageModelMiddleware } from "ai";
import { Client, MemoryConsoleError, type RoomKind } from "memory-console-client";
import { z } from "zod";

export interface MemoryRoom {
  roomId: string;
  roomKind?: RoomKind;
  person?: string;
  projects?: readonly string[];
}

export interface MemoryConsoleOptions {
  baseUrl: string;
  token: string;
  room: MemoryRoom;
  /** How long a call may take before the app goes on without memory; default 2000 ms (or the
   * environment's MEMORY_CONSOLE_READ_BUDGET, in seconds). */
  timeoutMs?: number;
  /** Where a memory miss is told; default console.warn. */
  warn?: (message: string) => void;
}

type Prompt = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"]["prompt"];

/** The room from the app's settings (see the module's doc); a bad value throws, naming it. */
export function roomOf(room: MemoryRoom): Required<Pick<MemoryRoom, "roomId" | "roomKind">> & MemoryRoom {
  if (!room?.roomId) throw new TypeError("room.roomId (the conversation's id) is required");
  const roomKind = room.roomKind ?? (room.person ? "direct" : "group");
  if (roomKind === "direct" && !room.person) {
    throw new TypeError("a direct room needs room.person, the person the app is talking with");
  }
  return { ...room, roomKind };
}

export class MemoryConsole {
  readonly client: Client;
  private readonly warn: (message: string) => void;

  constructor(options: MemoryConsoleOptions) {
    const { baseUrl, token, room, timeoutMs = defaultBudget() } = options;
    this.client = new Client({ baseUrl, token, timeoutMs, ...roomOf(room) });
    this.warn = options.warn ?? ((message) => console.warn(`memory-console: ${message}`));
  }

  /** The memory section for this room, or "" when Memory Console can't give it in time. */
  async section(): Promise<string> {
    try {
      return (await this.client.prompt()).text;
    } catch (error) {
      this.warn(`memory section left out: ${String(error)}`);
      return "";
    }
  }

  /** Report a delivered exchange; false (and a warning) when it was not taken. */
  async report(message: string, reply: string): Promise<boolean> {
    if (!message.trim() || !reply.trim()) return false;
    const id = crypto.randomUUID();
    try {
      await this.client.reportExchange({ message, reply, message_id: `m-${id}`, reply_id: `r-${id}` });
      return true;
    } catch (error) {
      this.warn(`exchange not reported: ${String(error)}`);
      return false;
    }
  }

  /** The remember and recall tools, for `generateText({ tools })`. */
  tools() {
    return {
      remember: tool({
        description:
          'Save one lasting fact in memory. scope: "bot" (your own memory, team-wide), "user" (about the person you talk with, direct chats only) or "project" (name the project).',
        inputSchema: z.object({
          text: z.string().describe("The fact, one sentence."),
          scope: z.enum(["bot", "user", "project"]).default("bot"),
          project: z.string().optional(),
        }),
        execute: async ({ text, scope, project }) => {
          try {
            const saved = await this.client.remember(text, { scope, project });
            return saved.existed ? "Already remembered." : `Remembered (${saved.scope} memory).`;
          } catch (error) {
            return `Not saved (${codeOf(error)}): ${messageOf(error)}`;
          }
        },
      }),
      recall: tool({
        description: "Search memory for facts about a topic, by words and meaning.",
        inputSchema: z.object({ query: z.string().describe("What to look for.") }),
        execute: async ({ query }) => {
          try {
            const found = await this.client.recall(query, { limit: 8 });
            if (!found.items.length) return "Nothing in memory matches.";
            return found.items.map((fact) => `- (${fact.date}) ${fact.text}`).join("\n");
          } catch (error) {
            return `Memory could not be searched (${codeOf(error)}): ${messageOf(error)}`;
          }
        },
      }),
    };
  }

  /** The model middleware: the section in before each call, the turn reported after a final reply. */
  middleware(): LanguageModelMiddleware {
    return {
      transformParams: async ({ params }) => {
        const section = await this.section();
        if (!section) return params;
        const prompt = [...params.prompt];
        const at = prompt.findIndex((message) => message.role !== "system");
        prompt.splice(at === -1 ? prompt.length : at, 0, { role: "system", content: section });
        return { ...params, prompt };
      },
      wrapGenerate: async ({ doGenerate, params }) => {
        const result = await doGenerate();
        const called = result.content.some((part) => part.type === "tool-call");
        const reply = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
        if (!called) await this.report(lastUserText(params.prompt), reply);
        return result;
      },
      wrapStream: async ({ doStream, params }) => {
        const { stream, ...rest } = await doStream();
        let reply = "";
        let called = false;
        const watched = stream.pipeThrough(
          new TransformStream({
            transform: (part, controller) => {
              if (part.type === "text-delta") reply += part.delta;
              if (part.type === "tool-call") called = true;
              controller.enqueue(part);
            },
            flush: async () => {
              if (!called) await this.report(lastUserText(params.prompt), reply);
            },
          }),
        );
        return { stream: watched, ...rest };
      },
    };
  }
}

/** MEMORY_CONSOLE_READ_BUDGET (seconds) where there is an environment, else 2 s, in ms. */
function defaultBudget(): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const seconds = Number(env?.MEMORY_CONSOLE_READ_BUDGET || 2);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 2000;
}

/** The text of the last user message of a model call's prompt. */
export function lastUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message.role === "user") {
      return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    }
  }
  return "";
}

function codeOf(error: unknown): string {
  return error instanceof MemoryConsoleError ? error.code : "error";
}

function messageOf(error: unknown): string {
  return error instanceof MemoryConsoleError ? error.message : String(error);
}
