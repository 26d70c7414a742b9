/**
 * The TypeScript client against a live server: every call, and the errors' codes. It needs a bot
 * of its own (its token in MEMORY_CONSOLE_TOKEN) that has joined a project (MEMORY_CONSOLE_PROJECT,
 * default apollo) and acts for a person (MEMORY_CONSOLE_PERSON, default alice); the workspace may
 * hold anything else. Its rooms are new each run (MEMORY_CONSOLE_RUN names the run, default the
 * time). tests/clients/test_typescript_client.py makes such a bot fresh, runs this and then checks
 * the Markdown files it leaves.
 */

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import {
  AuthenticationError,
  Client,
  ConflictError,
  ConnectionFailedError,
  InvalidRequestError,
  MemoryConsoleError,
  NotFoundError,
  PermissionDeniedError,
  ServerError,
  UnavailableError,
} from "../src/index.js";

const baseUrl = process.env.MEMORY_CONSOLE_URL ?? "";
const token = process.env.MEMORY_CONSOLE_TOKEN ?? "";
const person = process.env.MEMORY_CONSOLE_PERSON ?? "alice";
const project = process.env.MEMORY_CONSOLE_PROJECT ?? "apollo";
const run = process.env.MEMORY_CONSOLE_RUN ?? Date.now().toString(36);

/** The bot this token acts as (GET /me), whose shard paths the answers name. */
async function whoami(): Promise<string> {
  const answer = await fetch(`${baseUrl}/api/v1/me`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(answer.status, 200, await answer.clone().text());
  return ((await answer.json()) as { bot: string }).bot;
}

async function refusal(call: () => Promise<unknown>): Promise<MemoryConsoleError> {
  try {
    await call();
  } catch (error) {
    assert.ok(error instanceof MemoryConsoleError, `not a MemoryConsoleError: ${String(error)}`);
    return error;
  }
  assert.fail("the call was not refused");
}

test("every call of the client", { skip: !baseUrl && "MEMORY_CONSOLE_URL is not set" }, async () => {
  const bot = await whoami();
  const memory = new Client({ baseUrl, token, roomId: `dm-ts-${run}`, roomKind: "direct", person, projects: [project] });
  const before = await memory.prompt();
  assert.equal(typeof before.text, "string");

  const saved = await memory.remember("Prefers aisle seats", { scope: "user", type: "preference", idempotencyKey: `ts-1-${run}` });
  assert.equal(saved.existed, false);
  assert.equal(saved.file, `users/${person}/memory/by-agent/${bot}/log/${saved.date.slice(0, 7)}.md`);
  assert.deepEqual(await memory.remember("Prefers aisle seats", { scope: "user", type: "preference", idempotencyKey: `ts-1-${run}` }), saved);

  const launch = await memory.remember("Zeus ships in May", { scope: "project", project, tier: "profile" });
  assert.equal(launch.file, `projects/${project}/memory/by-agent/${bot}/profile.md`);
  assert.equal((await memory.remember("zeus ships in may", { scope: "project", project, tier: "profile" })).existed, true);

  // The workspace may hold other facts (other bots', earlier runs'): this run's are among them.
  const page = await memory.listFacts({ limit: 100 });
  const ids = page.items.map((f) => f.id);
  assert.ok(ids.includes(saved.id) && ids.includes(launch.id), JSON.stringify(page.items));
  assert.ok(page.total >= 2);
  const projectOnly = await memory.listFacts({ scope: "project", project, limit: 100 });
  assert.ok(projectOnly.items.some((f) => f.id === launch.id));
  assert.ok(projectOnly.items.every((f) => f.scope === "project"), JSON.stringify(projectOnly.items));

  const hits = await memory.recall("aisle seat", { limit: 5 });
  assert.equal(hits.items[0]?.text, "Prefers aisle seats");

  const changes = await memory.promptChanges(before.text);
  assert.ok(changes.added.some((line) => line.includes("Zeus ships in May")), changes.text);

  const moved = await memory.edit(launch.id, "Zeus ships in June", { expected_text: "Zeus ships in May" });
  assert.equal(moved.text, "Zeus ships in June");
  const stale = await refusal(() => memory.edit(moved.id, "Zeus ships in July", { expected_text: "Zeus ships in May" }));
  assert.ok(stale instanceof ConflictError);
  assert.equal(stale.code, "conflict");
  assert.equal(stale.detail.current, "Zeus ships in June");

  const marked = await memory.feedback(moved.id, "wrong");
  assert.deepEqual([marked.verb, marked.copies, marked.fact.meta.mark], ["wrong", 1, "wrong"]);
  assert.ok(!(await memory.prompt()).text.includes("Zeus ships in June"));
  assert.equal((await memory.feedback(saved.id, "useful")).fact.meta.checked, marked.fact.meta.review);

  const gone = await memory.forget({ text: "PREFERS aisle seats" });
  assert.equal(gone.forgotten, 1);

  const feed = await memory.changes({ since: 0 });
  assert.deepEqual(
    // this test's own changes (the workspace holds other bots' facts too, added by hand)
    feed.events.filter((e) => e.shard_bot === bot).map((e) => [e.type, e.text]),
    // feedback writes the line too (mark=, checked=): an edit of the same text
    [["add", "Prefers aisle seats"], ["add", "Zeus ships in May"], ["edit", "Zeus ships in June"], ["edit", "Zeus ships in June"], ["edit", "Prefers aisle seats"], ["forget", "Prefers aisle seats"]],
  );
  assert.equal((await memory.changes({ since: feed.cursor })).events.length, 0);
  const missing = await refusal(() => memory.forget({ id: saved.id }));
  assert.ok(missing instanceof NotFoundError);
  assert.equal(missing.code, "not_found");

  const section = await memory.prompt();
  const receipt = await memory.reportExchange({ message: "Book me a flight to Oslo", reply: "Booked.", message_id: `t1-${run}`, reply_id: `t2-${run}`, digest: section.digest });
  // "skipped" on a server with learning off; tests/clients turns it on and expects "queued".
  assert.equal(receipt.status, process.env.MEMORY_CONSOLE_LEARNING === "on" ? "queued" : receipt.status);
  assert.ok(["queued", "skipped"].includes(receipt.status), receipt.status);
  const injected = section.blocks.reduce((n, block) => n + block.facts.length, 0);
  assert.ok(injected > 0);
  assert.equal(receipt.sources?.injected, injected);
  assert.equal(receipt.sources?.digest, section.digest);
  assert.equal(receipt.sources?.cited, 0);
  const repeat = await memory.reportExchange({ message: "Book me a flight to Oslo", reply: "Booked.", message_id: `t1-${run}`, reply_id: `t2-${run}` });
  assert.deepEqual([repeat.id, repeat.repeated], [receipt.id, true]);
});

test("Claude's memory tool", { skip: !baseUrl && "MEMORY_CONSOLE_URL is not set" }, async () => {
  const memory = new Client({ baseUrl, token, roomId: "dm-ts-tool", roomKind: "direct", person: "alice" });
  const saved = await memory.memoryTool({ command: "create", path: "/memories/user.md", file_text: "- Drinks oat milk" });
  assert.equal(saved, "Saved 1 new fact(s) in /memories/user.md (about alice).");
  const view = await memory.memoryTool({ command: "view", path: "/memories/user.md" });
  assert.ok(view.endsWith("- Drinks oat milk"), view);
  const refused = await refusal(() => memory.memoryTool({ command: "rename", old_path: "/memories/user.md", new_path: "/memories/bot.md" }));
  assert.ok(refused instanceof InvalidRequestError);
  assert.equal(refused.code, "memory_tool_refused");
});

test("refusals carry the API's code", { skip: !baseUrl && "MEMORY_CONSOLE_URL is not set" }, async () => {
  const team = new Client({ baseUrl, token, roomId: `team-ts-${run}`, roomKind: "group" });
  const forbidden = await refusal(() => team.remember("Alice likes jazz", { scope: "user" }));
  assert.ok(forbidden instanceof PermissionDeniedError);
  assert.deepEqual([forbidden.status, forbidden.code], [403, "forbidden"]);

  const invalid = await refusal(() => team.remember("x".repeat(501)));
  assert.ok(invalid instanceof InvalidRequestError);
  assert.equal(invalid.code, "invalid_request");

  const stranger = team.inRoom({ roomId: `dm-zed-${run}`, roomKind: "direct", person: `zed-${run}` });
  assert.equal((await refusal(() => stranger.prompt())).code, "person_unknown");

  const intruder = new Client({ baseUrl, token: "mct_not-a-real-token", roomId: "team-ts", roomKind: "group" });
  const denied = await refusal(() => intruder.recall("anything"));
  assert.ok(denied instanceof AuthenticationError);
  assert.deepEqual([denied.status, denied.code], [401, "unauthorized"]);

  const nowhere = new Client({ baseUrl: "http://127.0.0.1:9", token, roomId: "team-ts", roomKind: "group" });
  const down = await refusal(() => nowhere.prompt());
  assert.ok(down instanceof ConnectionFailedError);
  assert.deepEqual([down.status, down.code], [0, "connection_failed"]);

  assert.throws(() => team.forget({} as never), /exactly one of id .* and text/);
  assert.throws(() => team.edit("../../me", "x"), /16 hex digits/);
});

test("a private group room keeps what is saved there", { skip: !baseUrl && "MEMORY_CONSOLE_URL is not set" }, async () => {
  const bot = await whoami();
  const board = new Client({ baseUrl, token, roomId: `board-ts-${run}`, roomKind: "group", roomPrivate: true });
  const saved = await board.remember("Q3 numbers come out on Friday");
  assert.equal(saved.scope, "room");
  assert.ok(saved.file.startsWith(`rooms/board-ts-${run}/memory/by-agent/${bot}/`), saved.file);
  // Bound private by that call: a later call that does not repeat the claim still reads it.
  const later = board.inRoom({ roomId: `board-ts-${run}`, roomKind: "group" });
  assert.deepEqual((await later.listFacts({ scope: "room" })).items.map((f) => f.text), ["Q3 numbers come out on Friday"]);

  // A shared group room (no roomPrivate) saves to the bot's own memory and never reads it.
  const team = board.inRoom({ roomId: `shared-ts-${run}`, roomKind: "group" });
  const shared = await team.remember("Standup is at 9:30");
  assert.equal(shared.scope, "bot");
  assert.deepEqual((await team.listFacts({ scope: "bot" })).items.map((f) => f.text), ["Standup is at 9:30"]);
  const rebound = await refusal(() => board.inRoom({ roomId: `shared-ts-${run}`, roomKind: "group", roomPrivate: true }).listFacts());
  assert.ok(rebound instanceof ConflictError);
  assert.equal(rebound.code, "room_conflict");

  assert.throws(() => board.inRoom({ roomId: `dm-ts-${run}`, roomKind: "direct", person, roomPrivate: true }), /roomPrivate is for a group room/);
  assert.throws(() => new Client({ baseUrl, token, roomId: "b", roomKind: "group", roomPrivate: "yes" as never }), /roomPrivate must be true or false, got "yes"/);
});

test("answers that are not the API's still throw with what came", async () => {
  // What can stand between a bot and the API: a proxy answering 502 in HTML, and the API
  // itself answering 503 while its database is down.
  const proxy = createServer((request, response) => {
    if (request.url?.startsWith("/api/v1/prompt")) {
      response.writeHead(502, { "Content-Type": "text/html" }).end("<html><h1>502 Bad Gateway</h1></html>");
    } else {
      const problem = { code: "database_unavailable", message: "Retry in 2 s.", detail: {} };
      response.writeHead(503, { "Content-Type": "application/json", "Retry-After": "2" }).end(JSON.stringify(problem));
    }
  });
  await new Promise<void>((listening) => proxy.listen(0, "127.0.0.1", listening));
  try {
    const { port } = proxy.address() as AddressInfo;
    const memory = new Client({ baseUrl: `http://127.0.0.1:${port}`, token: "mct_x", roomId: "team", roomKind: "group" });
    const badGateway = await refusal(() => memory.prompt());
    assert.ok(badGateway instanceof ServerError);
    assert.deepEqual([badGateway.status, badGateway.code], [502, "http_error"]);
    assert.match(badGateway.message, /502 Bad Gateway/);
    const down = await refusal(() => memory.recall("anything"));
    assert.ok(down instanceof UnavailableError);
    assert.deepEqual([down.code, down.retryAfter], ["database_unavailable", 2]);
  } finally {
    proxy.close();
  }
});

test("a server that never answers times out with code timeout", async () => {
  const silent = createTcpServer(() => {}); // accepts connections, never answers
  await new Promise<void>((listening) => silent.listen(0, "127.0.0.1", listening));
  try {
    const { port } = silent.address() as AddressInfo;
    const memory = new Client({ baseUrl: `http://127.0.0.1:${port}`, token: "mct_x", roomId: "team", roomKind: "group", timeoutMs: 300 });
    const waited = await refusal(() => memory.prompt());
    assert.ok(waited instanceof ConnectionFailedError);
    assert.deepEqual([waited.status, waited.code], [0, "timeout"]);
  } finally {
    silent.close();
  }
});
