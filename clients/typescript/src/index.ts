/**
 * memory-console-client: a typed client for the Memory Console bots' API.
 *
 *     const memory = new Client({ baseUrl, token, roomId: "dm-42", roomKind: "direct", person: "alice" });
 *     const section = (await memory.prompt()).text;
 *
 * `Client` makes the calls, `errors` holds what they throw, `schema` is generated from the
 * server's OpenAPI schema (`npm run generate`).
 */

export * from "./client.js";
export * from "./errors.js";
export type { components, operations, paths } from "./schema.js";
