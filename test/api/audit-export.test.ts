// The audit log's exports (docs/audit.md, docs/operator.md), on both engines: entries written, exported as CSV and as
// JSON, parsed back and equal to the list route's entries, exact values; formula cells neutralised as the clicks'
// CSV export does; the team's export holds only its own entries, the operator's every entry; a range of days;
// more entries than a page; refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { testAccount } from "../helpers/team.js";
import { account, operator } from "../helpers/operator.js";
import { record, teamMember } from "../helpers/audit.js";
import { AUDIT_CSV_HEADER } from "../../src/contract/audit.js";
import { EXPORT_PAGE, auditEntries } from "../../src/admin/audit-export.js";
import type { AuditEntry } from "../../src/contract/admin.js";

let n = 0;
const email = (what: string) => `export-${what}-${++n}-${Date.now().toString(36)}@example.com`;

/** A CSV export read back into entries: the header checked, JSON columns parsed, an empty actor id as null, formula prefixes removed. */
function fromCsv(text: string): AuditEntry[] {
  // (fetch's text() drops the byte-order mark the file starts with.)
  expect(text.endsWith("\r\n")).toBe(true);
  const [header, ...rows] = parse(text.replace(/^\uFEFF/, ""), { relax_column_count: false }) as string[][];
  expect(header).toEqual([...AUDIT_CSV_HEADER]);
  const unformula = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);
  return rows.map((r) => {
    const [id, at, actor_id, actor_email, actor_role, action, target_type, target_id, summary, before, after] = r.map(unformula) as string[];
    return {
      id: id!,
      at: at!,
      actor_id: actor_id === "" ? null : actor_id!,
      actor_email: actor_email!,
      actor_role: actor_role as AuditEntry["actor_role"],
      action: action!,
      target_type: target_type!,
      target_id: target_id!,
      summary: summary!,
      before: JSON.parse(before!) as unknown,
      after: JSON.parse(after!) as unknown,
    };
  });
}

describe.each(ENGINES)("audit log exports on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("round trip: the CSV and JSON exports parse back to the list route's entries; formulas neutralised", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const m = await teamMember(server, owner, "member");
    expect((await owner.client.patch(`/api/team/members/${m.id}`, { role: "viewer" })).status).toBe(200);
    const t = Date.UTC(2026, 4, 1, 8);
    const hostile = ['=HYPERLINK("http://evil.test","x")', "+1+1", "-2", "@SUM(A1)", "\tTAB", "\rCR", 'quote " and, comma\nnewline', "é ✓ 💥"];
    for (const [i, s] of hostile.entries()) {
      await record(server, i % 2 ? { id: null, email: `=cmd|' /C calc'!A0 ${i}` } : owner, t + i * 1000, {
        teamId: owner.id,
        action: `sso.update`,
        targetId: s,
        summary: s,
        before: i === 0 ? undefined : { text: s, n: i, nested: [null, true, 1.5] },
        after: i === 1 ? null : { s },
      });
    }
    await record(server, owner, t, { action: "account.2fa_enabled", summary: "not the team's" });

    const listed: AuditEntry[] = (await owner.client.get("/api/team/audit?limit=100")).body.entries;
    expect(listed).toHaveLength(hostile.length + 1);
    const csv = await owner.client.get("/api/team/audit.csv");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="snip-team-audit-all-all.csv"');
    expect(fromCsv(csv.text)).toEqual(listed);
    // Every formula-looking cell starts with ' in the file itself.
    const raw = parse(csv.text) as string[][];
    for (const row of raw.slice(1)) for (const cell of row) expect(/^[=+\-@\t\r]/.test(cell), cell).toBe(false);
    expect(raw.some((r) => r[8] === '\'=HYPERLINK("http://evil.test","x")')).toBe(true);

    const json = await owner.client.get("/api/team/audit.json");
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(json.headers.get("content-disposition")).toBe('attachment; filename="snip-team-audit-all-all.json"');
    expect(JSON.parse(json.text)).toEqual(listed);

    // A range of days and filters select the same entries the list does.
    const day = "from=2026-05-01&to=2026-05-01&actor=cmd";
    const dayList: AuditEntry[] = (await owner.client.get(`/api/team/audit?${day}`)).body.entries;
    expect(dayList).toHaveLength(4);
    expect(JSON.parse((await owner.client.get(`/api/team/audit.json?${day}`)).text)).toEqual(dayList);
    expect(fromCsv((await owner.client.get(`/api/team/audit.csv?${day}`)).text)).toEqual(dayList);
    expect((await owner.client.get(`/api/team/audit.csv?${day}`)).headers.get("content-disposition")).toBe(
      'attachment; filename="snip-team-audit-2026-05-01-2026-05-01.csv"',
    );

    // An empty range: a header alone, an empty array.
    expect(fromCsv((await owner.client.get("/api/team/audit.csv?from=2030-01-01")).text)).toEqual([]);
    expect(JSON.parse((await owner.client.get("/api/team/audit.json?from=2030-01-01")).text)).toEqual([]);
  });

  it("the operator's exports hold every entry of the instance, as GET /api/admin/audit lists them; others are refused", async () => {
    const ops = await operator(server, email("op"));
    const owner = await testAccount(server, email("owner"), "enterprise");
    const at = Date.UTC(2026, 6, 4, 10);
    await record(server, owner, at, { teamId: owner.id, targetId: "team-entry", summary: "=1+1" });
    await record(server, ops, at + 1, { action: "account.plan", targetId: "op-entry" });
    await record(server, { id: null, email: "command line" }, at + 2, { action: "account.admin", targetId: "cli-entry" });
    const listed: AuditEntry[] = (await ops.client.get("/api/admin/audit?limit=100")).body.entries.filter((e: AuditEntry) => e.at.startsWith("2026-07-04"));
    expect(listed.map((e) => [e.target_id, e.actor_role])).toEqual([
      ["cli-entry", "system"],
      ["op-entry", "operator"],
      ["team-entry", "account_holder"],
    ]);
    const q = "from=2026-07-04&to=2026-07-04";
    const csv = await ops.client.get(`/api/admin/audit.csv?${q}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="snip-instance-audit-2026-07-04-2026-07-04.csv"');
    expect(fromCsv(csv.text)).toEqual(listed);
    const json = await ops.client.get(`/api/admin/audit.json?${q}`);
    expect(json.status).toBe(200);
    expect(JSON.parse(json.text)).toEqual(listed);

    const plain = await account(server, email("plain"), { plan: "enterprise" });
    for (const path of ["/api/admin/audit.csv", "/api/admin/audit.json"]) {
      const r = await plain.client.get(path);
      expect([r.status, r.body.code], path).toEqual([403, "forbidden"]);
      for (const bad of ["from=2026-13-01", "to=x", "from=2026-07-05&to=2026-07-04", "limit=5", `actor=${"a".repeat(255)}`]) {
        const b = await ops.client.get(`${path}?${bad}`);
        expect([b.status, b.body.code], `${path}?${bad}`).toEqual([400, "invalid_request"]);
      }
    }
  });

  it("exports more entries than a page holds, in order, once each; concurrent exports agree", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const count = EXPORT_PAGE + 205;
    const at = Date.UTC(2026, 8, 1);
    await server.ctx.storage.db
      .insertInto("admin_audit")
      .values(
        Array.from({ length: count }, (_, i) => ({
          at: at + i,
          actor_id: owner.id,
          actor_email: owner.email,
          action: "team.role",
          target_type: "account",
          target_id: `bulk-${i}`,
          summary: `entry ${i}`,
          before: null,
          after: JSON.stringify({ i }),
          team_id: owner.id,
        })),
      )
      .execute();
    const answers = await Promise.all([1, 2, 3].map(() => owner.client.get("/api/team/audit.json")));
    const first = JSON.parse(answers[0]!.text) as AuditEntry[];
    expect(first.map((e) => e.target_id)).toEqual(Array.from({ length: count }, (_, i) => `bulk-${count - 1 - i}`));
    for (const a of answers) expect(JSON.parse(a.text)).toEqual(first);
    expect(fromCsv((await owner.client.get("/api/team/audit.csv")).text)).toEqual(first);

    // Page by page with a small page: the same entries (the generator's keyset).
    const paged: AuditEntry[] = [];
    for await (const e of auditEntries(server.ctx.audit, { teamId: owner.id }, 7)) paged.push(e);
    expect(paged).toEqual(first);
  });
});
