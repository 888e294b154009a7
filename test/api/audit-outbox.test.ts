// The audit log's entries as click-stream events (docs/stream.md, Audit events), on both engines, without brokers:
// each entry queues one outbox row per sink that takes it, in the entry's own transaction (a rolled-back action
// leaves neither), the operator's sinks every entry, an account's sink its own team's only; the rows decode as
// an `audit` event without a link, and rows written before (with a link of four or five values) still decode.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { testAccount } from "../helpers/team.js";
import { operator } from "../helpers/operator.js";
import { record, teamMember } from "../helpers/audit.js";
import { decodeOutward } from "../../src/streams/event-outbox.js";
import type { AuditEntry } from "../../src/contract/admin.js";

let n = 0;
const email = (what: string) => `outbox-${what}-${++n}-${Date.now().toString(36)}@example.com`;

describe("outward rows decode", () => {
  it("an audit row has no link; rows written before keep theirs (four values: in no folder)", () => {
    const audit = decodeOutward('{"x":{"type":"audit","id":"audit:7","owner_id":"o1","data":{"audit":{"id":"7"}}}}');
    expect(audit).toEqual({ id: "audit:7", type: "audit", owner_id: "o1", link: null, tail: '"audit":{"id":"7"}' });
    const four = decodeOutward('{"x":{"type":"lead.created","id":"lead.created:1","owner_id":"o1","link":["l1","al","","https://a.test"],"data":{"lead":{}}}}');
    expect(four?.link).toEqual({ link_id: "l1", alias: "al", domain: "", url: "https://a.test", folder_id: null });
    const five = decodeOutward(
      '{"x":{"type":"sale.created","id":"sale.created:1","owner_id":"o1","link":["l1","al","d.test","https://a.test","f1"],"data":{"sale":{}}}}',
    );
    expect(five?.link).toEqual({ link_id: "l1", alias: "al", domain: "d.test", url: "https://a.test", folder_id: "f1" });
    expect(decodeOutward('[{"id":"c1"}]')).toBeNull();
  });
});

describe.each(ENGINES)("audit events in the click stream's outbox on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    // Brokers nobody listens on: the rows stay in the outbox to be read here.
    server = await startTestServer({ engine, env: { WEBHOOK_ALLOW_PRIVATE: "true", STREAM_REDIS_URL: "redis://127.0.0.1:1", STREAM_POLL_MS: "60000" } });
  });
  afterAll(async () => server?.close());

  /** An audit event's entry: its id is `audit:<entry id>:<random>`. */
  const entryOf = (eventId: string) => /^audit:(\d+):[A-Za-z0-9_-]{10,}$/.exec(eventId)?.[1];
  const rowsOf = async (entryIds: string[]) =>
    (await server.ctx.storage.db.selectFrom("stream_outbox").selectAll().where("event_id", "like", "audit:%").orderBy("id").execute()).filter((r) =>
      entryIds.includes(entryOf(r.event_id) as string),
    );

  it("the operator's sink gets every entry, an account's sink its own team's only; the body is the entry as listed", async () => {
    const ops = await operator(server, email("op"));
    const a = await testAccount(server, email("a"), "enterprise");
    const b = await testAccount(server, email("b"), "enterprise");
    const sinkOf = async (who: typeof a) => {
      const s = await who.client.post("/api/streams", { name: "R", kind: "redis", url: "redis://127.0.0.1:1" });
      expect(s.status, s.text).toBe(201);
      return s.body.stream.id as string;
    };
    const [sinkA, sinkB] = [await sinkOf(a), await sinkOf(b)];
    // The operator's sink of STREAM_REDIS_URL (the other kinds' rows are inactive: not set).
    const instanceSink = "env:redis";

    const ma = await teamMember(server, a, "member");
    const mb = await teamMember(server, b, "member");
    expect((await a.client.patch(`/api/team/members/${ma.id}`, { role: "viewer" })).status).toBe(200);
    expect((await b.client.patch(`/api/team/members/${mb.id}`, { role: "admin" })).status).toBe(200);
    expect((await ops.client.patch(`/api/admin/accounts/${a.id}`, { status: "active" })).status).toBeLessThan(500);
    expect((await a.client.post("/api/keys", { name: "key" })).status).toBe(201);

    const all: AuditEntry[] = (await ops.client.get("/api/admin/audit?limit=100")).body.entries;
    const teamA = all.find((e) => e.action === "team.role" && e.target_id === ma.id)!;
    const teamB = all.find((e) => e.action === "team.role" && e.target_id === mb.id)!;
    const key = all.find((e) => e.action === "api_key.create" && e.actor_id === a.id)!;
    const ids = [teamA, teamB, key].map((e) => e.id);
    const rows = await rowsOf(ids);
    const bySink = (sink: string) => rows.filter((r) => r.sink_id === sink).map((r) => entryOf(r.event_id));
    expect(bySink(instanceSink)).toEqual(ids);
    expect(bySink(sinkA)).toEqual([teamA.id]);
    expect(bySink(sinkB)).toEqual([teamB.id]);
    // One event per entry: every sink's row of an entry carries the same id.
    expect(new Set(rows.filter((r) => entryOf(r.event_id) === teamA.id).map((r) => r.event_id)).size).toBe(1);
    for (const r of rows) {
      const e = decodeOutward(r.events as string)!;
      expect([e.type, e.link, Number(r.n)]).toEqual(["audit", null, 1]);
      const entry = [teamA, teamB, key].find((x) => x.id === entryOf(e.id))!;
      expect(e.owner_id).toBe(entry === teamA ? a.id : entry === teamB ? b.id : null);
      expect(JSON.parse(`{${e.tail}}`)).toEqual({ audit: entry });
    }
  });

  it("an action rolled back leaves neither the entry nor its event; concurrent entries each get one row per sink", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const before = await server.ctx.storage.db
      .selectFrom("admin_audit")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const failed = server.ctx.storage.db.transaction().execute(async (trx) => {
      await server.ctx.audit.record(trx, owner, Date.now(), { action: "team.role", targetType: "account", targetId: "rolled", summary: "s", teamId: owner.id });
      throw new Error("the action fails after its entry");
    });
    await expect(failed).rejects.toThrow("the action fails");
    const after = await server.ctx.storage.db
      .selectFrom("admin_audit")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const stray = await server.ctx.storage.db.selectFrom("stream_outbox").select("id").where("events", "like", '%"target_id":"rolled"%').execute();
    expect(stray).toEqual([]);

    await Promise.all(Array.from({ length: 25 }, (_, i) => record(server, owner, Date.now(), { teamId: owner.id, targetId: `conc-${i}` })));
    const listed: AuditEntry[] = (await owner.client.get("/api/team/audit?limit=100")).body.entries;
    expect(listed).toHaveLength(25);
    const rows = await rowsOf(listed.map((e) => e.id));
    // The operator's sink only (this owner has none): one row each.
    expect(rows.map((r) => entryOf(r.event_id)).sort()).toEqual(listed.map((e) => e.id).sort());
  });
});
