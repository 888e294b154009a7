// packages/client/README.md against the code: the scopes it names are the contract's, each with the key routes
// that take it (KEY_ROUTE_SCOPES), its example is the file the client's tests run, and the example's calls
// with the key are key routes (statistics need `stats:read`, not a signed-in session).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_KEY_SCOPES, KEY_ROUTE_SCOPES } from "../../src/contract/api-keys.js";

const ROOT = new URL("../../packages/client/", import.meta.url);
const README = readFileSync(new URL("README.md", ROOT), "utf8");
const EXAMPLE = readFileSync(new URL("examples/create-link-and-read-stats.ts", ROOT), "utf8");
const scopeOf = KEY_ROUTE_SCOPES as Record<string, readonly string[]>;
/** `/api/external/links/{id}` as the route list writes it (`:id`). */
const routeKey = (method: string, path: string) => `${method} ${path.replace(/\{(\w+)\}/g, ":$1")}`;

/** The `apiKey` bullet: each scope in backticks followed by its routes in parentheses. */
function scopesWithRoutes(): Map<string, string[]> {
  const bullet = /^- `apiKey`[\s\S]*?(?=^- )/m.exec(README)?.[0];
  if (!bullet) throw new Error("the README has no `apiKey` bullet");
  const out = new Map<string, string[]>();
  for (const m of bullet.replace(/\s+/g, " ").matchAll(/`([a-z_]+(?::[a-z]+)?)` \(([^)]*)\)/g)) {
    out.set(
      m[1]!,
      [...m[2]!.matchAll(/`([A-Z]+) (\/[^`\s]+)`/g)].map((r) => routeKey(r[1]!, r[2]!)),
    );
  }
  return out;
}

describe("packages/client/README.md", () => {
  it("names every key scope of the contract, each with exactly the routes that take it", () => {
    const named = scopesWithRoutes();
    expect([...named.keys()].sort()).toEqual([...API_KEY_SCOPES].sort());
    for (const scope of API_KEY_SCOPES) {
      const routes = Object.keys(scopeOf).filter((r) => scopeOf[r]!.includes(scope));
      expect(named.get(scope)?.sort(), scope).toEqual(routes.sort());
    }
  });

  it("names no scope the contract lacks", () => {
    const inBackticks = [...README.matchAll(/`([a-z_]+:[a-z]+)`/g)].map((m) => m[1]!);
    expect(inBackticks.length).toBeGreaterThan(0);
    for (const s of inBackticks) expect(API_KEY_SCOPES as readonly string[], s).toContain(s);
  });

  it("shows the example the tests run, whose calls with the key are key routes: statistics with stats:read", () => {
    const block = /^```ts\n([\s\S]*?)^```$/m.exec(README)?.[1];
    // The file's two comment lines (what it does, how to run it) stay out of the README.
    expect(block).toBe(EXAMPLE.split("\n").slice(2).join("\n"));
    const calls = [...block!.matchAll(/\bapi\.(GET|POST|PATCH|DELETE)\("([^"]+)"/g)].map((m) => routeKey(m[1]!, m[2]!));
    expect(calls).toEqual(["POST /api/external-create.php", "GET /api/external/links/:id/stats"]);
    for (const c of calls) expect(Object.keys(scopeOf), c).toContain(c);
    expect(scopeOf["GET /api/external/links/:id/stats"]).toEqual(["stats:read"]);
    expect(README).toContain("make it with the scopes `links:create` and `stats:read`");
    expect(README).not.toMatch(/statistics[^.]*sign in/i);
  });
});
