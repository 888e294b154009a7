// Helpers for tests that walk every route (app.routeList): concrete paths, the contract's error answer, and
// the row counts of the tables a request writes (to prove a refused request wrote nothing).
import { createHash } from "node:crypto";
import { sql } from "kysely";
import { expect } from "vitest";
import type { RouteInfo } from "../../src/http/app.js";
import { STATUS_BY_CODE } from "../../src/http/errors.js";
import { SECURITY_HEADERS } from "../../src/http/security-headers.js";
import type { TestServer } from "./server.js";

/** The parameter names of a route pattern; `*` is the wildcard's. */
export function paramNames(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)|\*/g)].map((m) => m[1] ?? "*");
}

/** The route pattern with each parameter replaced (values are inserted as given: encode them first). */
export function concretePath(url: string, values: Record<string, string>): string {
  return url.replace(/:([A-Za-z_][A-Za-z0-9_]*)|\*/g, (_m, name: string | undefined) => values[name ?? "*"] ?? "x");
}

/**
 * Codes docs/api.md gives (its table, sign-in's invalid_credentials, the redirect's click limit), and the
 * operator console's additions in docs/operator.md (destination_blocked; the redirect's disabled and blocked links), and
 * the key scopes' insufficient_scope (docs/api.md, API keys).
 */
export const CONTRACT_CODES = new Set([
  "destination_blocked",
  "link_disabled",
  "unavailable_legal",
  "link_blocked",
  "invalid_request",
  "unauthenticated",
  "invalid_api_key",
  "invalid_credentials",
  "csrf_failed",
  "forbidden",
  "plan_required",
  "account_inactive",
  "limit_reached",
  "not_found",
  "email_unverified",
  "expired",
  "alias_taken",
  "conflict",
  "payload_too_large",
  "rate_limited",
  "click_limit_reached",
  // Single sign-on (docs/sso.md).
  "sso_required",
  "sso_failed",
  "insufficient_scope",
  // docs/passkeys.md: a passkey ceremony without its pending challenge, an authenticator's answer refused.
  "invalid_challenge",
  "passkey_rejected",
  // docs/conversions.md: a lead for a click older than the account's attribution window.
  "attribution_expired",
  // docs/conversions.md: a Stripe event whose signature does not verify, or signed outside Stripe's tolerance.
  "invalid_signature",
]);

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** What is wrong with an answer by the contract (docs/api.md, Conventions), or null: never a 5xx, error bodies and headers as specified. */
export function contractViolation(a: Answer, method = "GET", htmlAllowed = false): string | null {
  if (a.status >= 500) return `status ${a.status}: ${a.text.slice(0, 200)}`;
  if (a.status < 300 || a.status >= 400) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      if (a.headers.get(name) !== value) return `header ${name} is ${a.headers.get(name)}`;
    }
  }
  if (a.status < 400) return null;
  if (a.status === 429 && !/^\d+$/.test(a.headers.get("retry-after") ?? "")) return "429 without Retry-After";
  const type = a.headers.get("content-type") ?? "";
  // Outside /api, a client that does not prefer JSON gets a small HTML page (docs/api.md, Short-link redirect).
  if (htmlAllowed && type.startsWith("text/html")) return a.headers.get("content-security-policy") ? null : "HTML error page without Content-Security-Policy";
  // /scim/v2 answers in SCIM's own error schema (RFC 7644 3.12; docs/scim.md): its status as a string, a known scimType.
  if (type.startsWith("application/scim+json")) return scimErrorViolation(a, method);
  if (!type.startsWith("application/json")) return `content-type ${type}`;
  // A HEAD answer has the error's status and headers, and no body to check.
  if (method === "HEAD") return null;
  let body: { status?: unknown; code?: unknown; message?: unknown };
  try {
    body = JSON.parse(a.text) as typeof body;
  } catch {
    return `not JSON: ${a.text.slice(0, 200)}`;
  }
  if (body.status !== "error" || typeof body.code !== "string" || typeof body.message !== "string") return `not an error body: ${a.text.slice(0, 200)}`;
  if (!CONTRACT_CODES.has(body.code)) return `code ${body.code} is not in docs/api.md`;
  const expected = STATUS_BY_CODE[body.code as keyof typeof STATUS_BY_CODE];
  if (expected !== a.status) return `code ${body.code} with status ${a.status} (docs/api.md: ${expected})`;
  return null;
}

const SCIM_TYPES = new Set(["invalidFilter", "invalidSyntax", "invalidPath", "invalidValue", "uniqueness", "mutability", "tooMany", "noTarget"]);

function scimErrorViolation(a: Answer, method: string): string | null {
  if (method === "HEAD") return null;
  let body: { schemas?: unknown; status?: unknown; scimType?: unknown; detail?: unknown };
  try {
    body = JSON.parse(a.text) as typeof body;
  } catch {
    return `not JSON: ${a.text.slice(0, 200)}`;
  }
  if (JSON.stringify(body.schemas) !== '["urn:ietf:params:scim:api:messages:2.0:Error"]' || body.status !== String(a.status) || typeof body.detail !== "string")
    return `not a SCIM error: ${a.text.slice(0, 200)}`;
  if (body.scimType !== undefined && !SCIM_TYPES.has(String(body.scimType))) return `scimType ${String(body.scimType)} is not RFC 7644's`;
  return null;
}

export function expectContract(a: Answer, what: string): void {
  expect(contractViolation(a), `${what} -> ${a.status} ${a.text.slice(0, 300)}`).toBeNull();
}

/**
 * Tables written as a side effect of refusals by design (throttles; orphan visits: a 404 is counted; the security
 * activity: a refused sign-in is listed) or later in the background (clicks, their visitor salts, the owners'
 * roll-ups, tracked clicks; security alert emails, stored and sent after the change answered).
 */
const NOT_REQUEST_STATE =
  /^(rate_events|orphan_visits|security_events|mail_outbox|clicks?|click_.*|tracked_clicks|visitor_salts|owner_(daily|hourly|breakdown)|kysely_.*|sqlite_.*)$/;

/** The application's tables, found in the database (so tables added later count too); a partitioned table once, not each partition. */
async function tableNames(server: TestServer): Promise<string[]> {
  const db = server.ctx.storage.db;
  const rows =
    server.ctx.storage.dialect === "postgres"
      ? (
          await sql<{
            name: string;
          }>`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition`.execute(db)
        ).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
  return rows
    .map((r) => r.name)
    .filter((n) => !/^(kysely_|sqlite_)/.test(n))
    .sort();
}

type CountRow = { t: string; n: number | string };

/** Per server: the tables a request writes, and the statement counting their rows (its text and a name for it). */
const counters = new WeakMap<TestServer, Promise<{ names: string[]; text: string; name: string }>>();

async function counter(server: TestServer): Promise<{ names: string[]; text: string; name: string }> {
  const names = (await tableNames(server)).filter((name) => !NOT_REQUEST_STATE.test(name));
  const text = sql
    .join(
      names.map((name) => sql`select ${sql.lit(name)} as t, count(*) as n from ${sql.table(name)}`),
      sql` union all `,
    )
    .compile(server.ctx.storage.db).sql;
  return { names, text, name: `test_row_counts_${createHash("sha256").update(text).digest("hex").slice(0, 16)}` };
}

/**
 * Row counts of every table a request writes: one statement for every table, the tables found once per server
 * (the route fuzzer counts after each refusal, thousands of times a run).
 */
export async function rowCounts(server: TestServer): Promise<Record<string, number>> {
  let made = counters.get(server);
  if (!made) counters.set(server, (made = counter(server)));
  const { names, text, name } = await made;
  const { db, prepared } = server.ctx.storage;
  // PostgreSQL plans a union of a hundred counts in milliseconds: prepared, each connection plans it once.
  const rows = prepared ? await prepared<CountRow>(name, text, []) : (await sql<CountRow>`${sql.raw(text)}`.execute(db)).rows;
  return Object.fromEntries(names.map((name) => [name, Number(rows.find((r) => r.t === name)?.n ?? 0)]));
}

/** Routes of the app minus HEAD twins (Fastify adds one per GET; they answer alike). */
export function routesOf(server: TestServer): RouteInfo[] {
  return server.app.routeList.filter((r) => r.method !== "HEAD" || !server.app.routeList.some((g) => g.method === "GET" && g.url === r.url));
}

/** Stored text no request may leave behind: control characters but TAB/LF/CR, DEL, C1, unpaired surrogates. */
const BAD_STORED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** "table.column: value" for every stored text value of every table (clicks included) that BAD_STORED matches. */
export async function storedControlText(server: TestServer): Promise<string[]> {
  const found: string[] = [];
  for (const name of await tableNames(server)) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(server.ctx.storage.db)).rows;
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === "string" && BAD_STORED.test(value)) found.push(`${name}.${column}: ${JSON.stringify(value.slice(0, 80))}`);
      }
    }
  }
  return found;
}
