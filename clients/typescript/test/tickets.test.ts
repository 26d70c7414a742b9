/**
 * A private room's claim with room tickets on: run only by tests/clients/test_typescript_client.py
 * against a server with ROOM_TICKET_KEY set, which hands over two tickets for its bot's group room
 * `board-ts-<MEMORY_CONSOLE_RUN>` in MEMORY_CONSOLE_TICKETS (`{"signed": …, "unsigned": …}`: signed with and
 * without `private`) and then checks what landed on disk. Without it, no test is registered.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { AuthenticationError, Client } from "../src/index.js";

const baseUrl = process.env.MEMORY_CONSOLE_URL ?? "";
const token = process.env.MEMORY_CONSOLE_TOKEN ?? "";
const tickets = process.env.MEMORY_CONSOLE_TICKETS;
const run = process.env.MEMORY_CONSOLE_RUN ?? "";

test("a private room's ticket must sign private", { skip: !tickets && "MEMORY_CONSOLE_TICKETS is not set" }, async () => {
  const { signed, unsigned } = JSON.parse(tickets ?? "{}") as { signed: string; unsigned: string };
  const room = { baseUrl, token, roomId: `board-ts-${run}`, roomKind: "group", roomPrivate: true } as const;
  const refused = await new Client({ ...room, ticket: unsigned }).remember("Q3 numbers come out on Friday").then(
    () => assert.fail("a ticket not signing private was accepted"),
    (error: unknown) => error,
  );
  assert.ok(refused instanceof AuthenticationError, String(refused));
  assert.deepEqual([refused.status, refused.code], [401, "ticket_invalid"]);

  const saved = await new Client({ ...room, ticket: signed }).remember("Q3 numbers come out on Friday");
  assert.equal(saved.scope, "room");
  assert.ok(saved.file.startsWith(`rooms/board-ts-${run}/memory/by-agent/`), saved.file);
});
