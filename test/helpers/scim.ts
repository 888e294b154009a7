// SCIM test set-up: an Enterprise owner with an OpenID connection whose email domain is verified (the row written
// directly: DNS has tests of its own), its SCIM token made through the API, and a client that speaks
// application/scim+json with a bearer token.
import { expect } from "vitest";
import { signedInClient, type ApiClient, type ApiResponse } from "./client.js";
import type { TestServer } from "./server.js";

export const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

export interface ScimTeam {
  owner: ApiClient;
  ownerId: string;
  connectionId: string;
  token: string;
}

let n = 0;

/** An Enterprise owner, their connection for `domain` (verified), and a fresh SCIM token. */
export async function scimTeam(server: TestServer, domain: string): Promise<ScimTeam> {
  const owner = await signedInClient(server, `owner-${++n}-${Date.now().toString(36)}@owner.test`, "enterprise");
  const ownerId = (await owner.get("/api/auth/session")).body.user.id as string;
  // A public address literal: nothing is fetched when the connection is set.
  const set = await owner.put("/api/sso", { issuer: "https://93.184.215.14/", client_id: "scim", client_secret: "scim-secret", domains: [domain] });
  expect(set.status, set.text).toBe(200);
  const connectionId = set.body.connection.id as string;
  await server.ctx.storage.db
    .updateTable("sso_domains")
    .set({ status: "verified", verified_at: Date.now() })
    .where("connection_id", "=", connectionId)
    .execute();
  const made = await owner.post("/api/sso/scim-token");
  expect(made.status, made.text).toBe(200);
  return { owner, ownerId, connectionId, token: made.body.token as string };
}

/** One SCIM request: JSON bodies sent as application/scim+json unless `type` says otherwise. */
export async function scim(
  server: Pick<TestServer, "url">,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  type = "application/scim+json",
): Promise<ApiResponse> {
  const headers: Record<string, string> = { accept: "application/scim+json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = type;
  const res = await fetch(`${server.url}/scim/v2${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A SCIM error answer: its status, scimType and the error schema. */
export function scimError(res: ApiResponse): [number, string | undefined] {
  expect(res.body?.schemas, res.text).toEqual([ERROR]);
  expect(res.body.status).toBe(String(res.status));
  expect(res.headers.get("content-type")).toMatch(/^application\/scim\+json/);
  return [res.status, res.body.scimType];
}

/** The member's row in the owner's team, or null. */
export async function membership(server: TestServer, ownerId: string, email: string) {
  return (
    (await server.ctx.storage.db
      .selectFrom("team_members")
      .innerJoin("users", "users.id", "team_members.member_id")
      .select(["team_members.role", "team_members.joined_by", "users.id"])
      .where("team_members.owner_id", "=", ownerId)
      .where("users.email", "=", email)
      .executeTakeFirst()) ?? null
  );
}
