/**
 * `Client`: one bot (its token) talking in one room (the context headers of every call), over
 * the global `fetch`. Each method builds one API call; `send` moves it and turns a refusal into
 * the fitting `MemoryConsoleError`. Request and answer shapes come from `schema.d.ts`, generated
 * from the server's OpenAPI schema.
 */

import { ConnectionFailedError, errorClass } from "./errors.js";
import type { components, operations } from "./schema.js";

type Schemas = components["schemas"];

export type Fact = Schemas["FactOut"];
export type SavedFact = Schemas["RememberOut"];
export type FactPage = Schemas["FactPageOut"];
export type Recall = Schemas["RecallOut"];
export type Prompt = Schemas["PromptOut"];
export type PromptChanges = Schemas["ChangesOut"];
export type Forgetting = Schemas["ForgetOut"];
export type Feedback = Schemas["FeedbackOut"];
export type FeedbackVerb = Schemas["FeedbackIn"]["verb"];
export type ExchangeReceipt = Schemas["ExchangeOut"];
export type ApiError = Schemas["ErrorOut"];
export type MemoryCommand = Schemas["MemoryToolIn"];
export type Changes = Schemas["FeedOut"];
export type ChangeEvent = Schemas["FeedEventOut"];
export type RoomKind = operations["remember"]["parameters"]["header"]["X-Room-Kind"];

export type RememberOptions = Partial<Omit<Schemas["RememberIn"], "text">> & {
  /** A retry with the same key returns the first answer and saves nothing twice. */
  idempotencyKey?: string;
};
export type RecallOptions = Omit<operations["recall"]["parameters"]["query"], "query">;
export type ListFilters = NonNullable<operations["list_facts"]["parameters"]["query"]>;
export type EditOptions = Partial<Omit<Schemas["EditIn"], "text">>;
export type ForgetTarget = Partial<Schemas["ForgetIn"]> &
  ({ id: string; text?: undefined } | { text: string; id?: undefined });
export type PromptOptions = NonNullable<operations["prompt_section"]["parameters"]["query"]>;
export type ChangesOptions = NonNullable<operations["changes"]["parameters"]["query"]>;
export type Exchange = Omit<Schemas["ExchangeIn"], "recalled" | "guests" | "digest"> & {
  recalled?: string[];
  /** Someone from outside the workspace took part: nothing is learned from the exchange. */
  guests?: boolean;
  /** The `prompt()` section's `digest` the reply was built with: its facts count as injected. */
  digest?: string;
};

export interface ClientOptions {
  /** The server, e.g. `http://127.0.0.1:8000` (the API is under `/api/v1`). */
  baseUrl: string;
  /** The bot's token, `mct_…` (`manage.py bots token SLUG`). */
  token: string;
  roomId: string;
  roomKind: RoomKind;
  /** The person in a direct room (registered and linked to the bot). */
  person?: string;
  /** Up to 3 joined projects in play. */
  projects?: readonly string[];
  /**
   * A group room that is a private conversation (a private channel): what is saved there
   * belongs to it. Sends `X-Room-Private: true`; with ROOM_TICKET_KEY the ticket must sign it.
   */
  roomPrivate?: boolean;
  /** A room ticket, when the server sets ROOM_TICKET_KEY. */
  ticket?: string;
  /** Per call; default 10 000 ms. */
  timeoutMs?: number;
}

type Query = Record<string, string | number | boolean | readonly string[] | null | undefined>;

interface Call {
  method: "GET" | "POST" | "PATCH";
  path: string;
  query?: Query;
  body?: object;
  headers?: Record<string, string>;
}

const FACT_ID = /^[0-9a-f]{16}$/;

export class Client {
  readonly options: Readonly<ClientOptions>;

  constructor(options: ClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl ?? "")) {
      throw new TypeError(`baseUrl must start with http:// or https://, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (!options.token?.trim()) {
      throw new TypeError("token must be the bot's API token (mct_…, `manage.py bots token`)");
    }
    if (!options.roomId) throw new TypeError("roomId must be the conversation's id, a non-empty string");
    if (options.roomPrivate !== undefined && typeof options.roomPrivate !== "boolean") {
      throw new TypeError(`roomPrivate must be true or false, got ${JSON.stringify(options.roomPrivate)}`);
    }
    if (options.roomPrivate && options.roomKind !== "group") {
      throw new TypeError(`roomPrivate is for a group room (a private channel), not a ${options.roomKind} room`);
    }
    if (typeof options.projects === "string") {
      throw new TypeError(`projects must be a list of project slugs, not the string ${JSON.stringify(options.projects)}`);
    }
    this.options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, "") };
  }

  /** The same bot in another room (`roomPrivate: true`: a group room that is a private conversation). */
  inRoom(room: Pick<ClientOptions, "roomId" | "roomKind" | "person" | "projects" | "roomPrivate" | "ticket">): Client {
    const { baseUrl, token, timeoutMs } = this.options;
    return new Client({ baseUrl, token, timeoutMs, ...room });
  }

  /** Save a fact (scope bot, user in direct rooms, or project with `project`); `existed: true` when the scope already held it. */
  remember(text: string, options: RememberOptions = {}): Promise<SavedFact> {
    const { idempotencyKey, ...fields } = options;
    const headers: Record<string, string> = idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {};
    return this.send({ method: "POST", path: "/facts", body: { text, ...defined(fields) }, headers });
  }

  /** Search what this room may read, by words and meaning. */
  recall(query: string, options: RecallOptions = {}): Promise<Recall> {
    return this.send({ method: "GET", path: "/recall", query: { query, ...options } });
  }

  /** Facts this room may read, newest first (a page). */
  listFacts(filters: ListFilters = {}): Promise<FactPage> {
    return this.send({ method: "GET", path: "/facts", query: filters });
  }

  /** New text for a fact; with `expected_text`, a fact changed meanwhile throws ConflictError (`detail.current`). */
  edit(factId: string, text: string, options: EditOptions = {}): Promise<Fact> {
    if (!FACT_ID.test(factId)) {
      throw new TypeError(`factId must be a fact's id (16 hex digits), got ${JSON.stringify(factId)}`);
    }
    return this.send({ method: "PATCH", path: `/facts/${factId}`, body: { text, ...defined(options) } });
  }

  /** Forget a fact by `id` or `text`; `erase: true` leaves no trace. `remaining` lists other bots' copies. */
  forget(target: ForgetTarget): Promise<Forgetting> {
    if ((target.id === undefined) === (target.text === undefined)) {
      throw new TypeError("forget needs exactly one of id (a fact's id) and text (its text)");
    }
    return this.send({ method: "POST", path: "/facts/forget", body: defined(target) });
  }

  /** Say what a fact you used is worth: `useful` (still true), `outdated`, `wrong` or `do-not-use` (the last two take it out of prompts and recall at once and send it to review). */
  feedback(factId: string, verb: FeedbackVerb): Promise<Feedback> {
    if (!FACT_ID.test(factId)) {
      throw new TypeError(`factId must be a fact's id (16 hex digits), got ${JSON.stringify(factId)}`);
    }
    return this.send({ method: "POST", path: `/facts/${factId}/feedback`, body: { verb } });
  }

  /** The memory section for this room's system prompt (`text`). */
  prompt(options: PromptOptions = {}): Promise<Prompt> {
    return this.send({ method: "GET", path: "/prompt", query: options });
  }

  /** What was added and removed since the section text `previous` was built. */
  promptChanges(previous: string): Promise<PromptChanges> {
    return this.send({ method: "POST", path: "/prompt/changes", body: { previous } });
  }

  /**
   * Run one command of Claude's memory tool (`memory_20250818`; the tool call's `input`, e.g.
   * `{ command: "view", path: "/memories" }`) over this bot's memory in this room: the tool
   * result's text. A command that can't be done throws InvalidRequestError
   * (`memory_tool_refused`) whose message tells the model what to do instead.
   */
  async memoryTool(command: MemoryCommand): Promise<string> {
    const answer = await this.send<Schemas["MemoryToolOut"]>({ method: "POST", path: "/memory-tool", body: command });
    return answer.result;
  }

  /** Every change in what this room may read after the cursor `since`, oldest first; send the
   * answer's `cursor` as `since` next time. */
  changes(options: ChangesOptions = {}): Promise<Changes> {
    return this.send({ method: "GET", path: "/changes", query: options });
  }

  /** Hand a delivered exchange to the learner (queued, or skipped and why). */
  reportExchange(exchange: Exchange): Promise<ExchangeReceipt> {
    return this.send({ method: "POST", path: "/exchanges", body: defined(exchange) });
  }

  private headers(): Record<string, string> {
    const { token, roomId, roomKind, person, projects, roomPrivate, ticket } = this.options;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${token.trim()}`,
      Accept: "application/json",
      "X-Room-Id": roomId,
      "X-Room-Kind": roomKind,
    };
    if (person) headers["X-Person"] = person;
    if (projects?.length) headers["X-Projects"] = projects.join(",");
    if (ticket) headers["X-Room-Ticket"] = ticket;
    if (roomPrivate) headers["X-Room-Private"] = "true";
    return headers;
  }

  private async send<T>(call: Call): Promise<T> {
    const url = new URL(`${this.options.baseUrl}/api/v1${call.path}`);
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (Array.isArray(value)) {
        for (const item of value) url.searchParams.append(key, item); // repeated: ?expect=a&expect=b
      } else if (value !== undefined && value !== null) {
        url.searchParams.set(key, String(value));
      }
    }
    const headers = { ...this.headers(), ...call.headers };
    if (call.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      const cause = error instanceof Error ? (error.cause ?? error) : error;
      throw new ConnectionFailedError(
        0,
        timedOut ? "timeout" : "connection_failed",
        `No answer from ${this.options.baseUrl}: ${String(cause)}`,
      );
    }
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as T;
    let problem: Partial<ApiError> | null = null;
    try {
      problem = JSON.parse(text) as Partial<ApiError>;
    } catch {
      problem = null;
    }
    const retry = response.headers.get("Retry-After");
    const Refusal = errorClass(response.status);
    if (!problem || typeof problem.code !== "string") {
      throw new Refusal(
        response.status,
        "http_error",
        `The server answered ${response.status} without an API error body: ${text.slice(0, 200)}`,
      );
    }
    throw new Refusal(
      response.status,
      problem.code,
      problem.message ?? "",
      problem.detail ?? {},
      seconds(retry),
    );
  }
}

/** A Retry-After in seconds (the API sends whole seconds; an HTTP date is not used here). */
function seconds(retryAfter: string | null): number | null {
  const value = Number(retryAfter?.trim() || Number.NaN);
  return value >= 0 && value < 86_400 ? value : null;
}

/** The fields the caller set (undefined ones are left to the server's defaults). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
