/**
 * What the types refuse: each line marked @ts-expect-error must be a compile error, or `tsc`
 * (and so `npm test`) fails. Nothing here is run against a server.
 */

import { test } from "node:test";

import { Client } from "../src/index.js";

export async function misuses(memory: Client): Promise<void> {
  // @ts-expect-error: a room kind the API does not know
  new Client({ baseUrl: "http://x", token: "t", roomId: "r", roomKind: "channel" });
  // @ts-expect-error: roomPrivate is true or false, not a string
  new Client({ baseUrl: "http://x", token: "t", roomId: "r", roomKind: "group", roomPrivate: "true" });
  // @ts-expect-error: a bot can't write legacy room memory
  await memory.remember("x", { scope: "room" });
  // @ts-expect-error: not a tier
  await memory.remember("x", { tier: "forever" });
  // @ts-expect-error: forget needs an id or a text
  await memory.forget({ erase: true });
  // @ts-expect-error: message ids are required
  await memory.reportExchange({ message: "hi", reply: "hello" });
  // @ts-expect-error: answers are typed: a fact has no `body`
  (await memory.recall("x")).items[0]?.body;
  // @ts-expect-error: list filters are the API's
  await memory.listFacts({ shard: "a" });
}

test("the types refuse misuse (checked by tsc when this compiles)", () => {});
