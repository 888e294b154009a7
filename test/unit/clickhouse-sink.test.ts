// The clickhouse kind without a server (src/streams/broker-clickhouse.ts, docs/stream.md, ClickHouse): the URL's
// database path, the rows an event becomes, and docs/stream.md's tables being exactly what the sink creates.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { streamConfigOf } from "../../src/config-stream.js";
import { parseBrokerUrl } from "../../src/streams/stream-urls.js";
import { clickhouseDatabase, clickhouseRow, clickhouseSchema } from "../../src/streams/broker-clickhouse.js";

const RULE = "must have a database name as its path (letters, digits and _, e.g. /snip) or none";

describe("the clickhouse kind's URL", () => {
  it("takes a database name as its path, or none (the default database)", () => {
    for (const [url, db] of [
      ["http://default:@127.0.0.1:8123/snip", "snip"],
      ["https://u:p@ch.example.com/analytics_2/", "analytics_2"],
      ["http://127.0.0.1:8123", "default"],
      ["http://127.0.0.1:8123/", "default"],
    ] as const) {
      expect(streamConfigOf({ STREAM_CLICKHOUSE_URL: url }).clickhouse).toBe(url);
      expect(clickhouseDatabase(parseBrokerUrl(url, "clickhouse"))).toBe(db);
    }
  });

  it("refuses any other path, in the settings and for an account's stream", () => {
    for (const url of ["http://h/snip/clicks", "http://h/1db", "http://h/a-b", "http://h/a%20b", `http://h/${"a".repeat(65)}`, "http://h/snip;DROP"]) {
      expect(() => streamConfigOf({ STREAM_CLICKHOUSE_URL: url }), url).toThrow(`STREAM_CLICKHOUSE_URL: ${RULE}`);
      expect(() => parseBrokerUrl(url, "clickhouse"), url).toThrow(RULE);
    }
    // Other kinds' paths are their libraries' business (a RabbitMQ vhost, a Redis database number).
    expect(parseBrokerUrl("amqp://h/vh-1", "amqp").pathname).toBe("/vh-1");
  });
});

describe("an event as a row of snip_events_in", () => {
  const link = { id: "L1", alias: "spring", domain: null, short_url: "http://s/spring", url: "https://example.com/", folder_id: null };
  const head = { schema: 1, version: 1, test: false, owner_id: "O1", created_at: "2026-11-28T08:30:00.512Z" };

  it("a click: its fields in columns, null as '', the time to the second and in milliseconds, no body", () => {
    const click = {
      at: "2026-11-28T08:29:59.871Z",
      country: "FR",
      device: "mobile",
      os: null,
      browser: "Mobile Safari",
      referrer_host: null,
      bot: true,
      destination: "ios",
      source: "qr",
    };
    const body = JSON.stringify({ ...head, id: "p.1", type: "link_click", link, click });
    expect(JSON.parse(clickhouseRow({ id: "p.1", ownerId: "O1", body }))).toEqual({
      id: "p.1",
      type: "link_click",
      at: "2026-11-28 08:29:59",
      at_ms: Date.parse(click.at),
      published_ms: Date.parse(head.created_at),
      owner_id: "O1",
      link_id: "L1",
      alias: "spring",
      domain: "",
      url: "https://example.com/",
      folder_id: "",
      country: "FR",
      device: "mobile",
      os: "",
      browser: "Mobile Safari",
      referrer_host: "",
      bot: 1,
      destination: "ios",
      source: "qr",
      body: "",
    });
  });

  it("any other event (here an audit entry of no team): the head in columns, the whole event in body", () => {
    const body = JSON.stringify({ ...head, owner_id: null, id: "audit:7", type: "audit", audit: { id: "7", action: "user.suspend" } });
    const row = JSON.parse(clickhouseRow({ id: "audit:7", ownerId: null, body }));
    expect(row).toMatchObject({ id: "audit:7", type: "audit", owner_id: "", link_id: "", at: "2026-11-28 08:30:00", country: "", bot: 0, body });
    expect(row.at_ms).toBe(Date.parse(head.created_at));
  });
});

describe("docs/stream.md's tables", () => {
  it("are the statements the sink runs at connect, for the database snip", () => {
    const doc = readFileSync(new URL("../../docs/stream.md", import.meta.url), "utf8");
    const at = doc.indexOf("```sql", doc.indexOf("### Tables"));
    const block = doc.slice(at + "```sql\n".length, doc.indexOf("\n```", at));
    expect(block).toBe(`${clickhouseSchema("snip").join(";\n\n")};`);
  });
});
