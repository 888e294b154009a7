// Link helpers for tests: create through the API (asserting 201) and read the stored click count.
import { expect } from "vitest";
import type { ApiClient } from "./client.js";
import type { TestServer } from "./server.js";

export async function createLink(client: ApiClient, body: Record<string, unknown>): Promise<{ id: string; alias: string }> {
  const r = await client.post("/api/links", body);
  expect(r.status, r.text).toBe(201);
  return r.body.link as { id: string; alias: string };
}

/** links.num of a link (what its raw clicks refer to it by). */
export async function linkNum(server: TestServer, id: string): Promise<number> {
  const row = await server.ctx.storage.db.selectFrom("links").select("num").where("id", "=", id).executeTakeFirstOrThrow();
  return Number(row.num);
}

/** The stored click count after writing every buffered click. */
export async function storedClicks(server: TestServer, id: string): Promise<number> {
  await server.ctx.clicks.flush();
  const row = await server.ctx.storage.db.selectFrom("links").select("click_count").where("id", "=", id).executeTakeFirstOrThrow();
  return Number(row.click_count);
}
