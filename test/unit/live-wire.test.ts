// The live feed's NOTIFY payloads: every payload under PostgreSQL's 8000-byte limit however many clicks a
// batch holds, and read back into exactly the clicks and skipped counts sent.
import { describe, expect, it } from "vitest";
import {
  PAYLOAD_LIMIT,
  clicksPayloads,
  conversionPayload,
  parseClicks,
  parseConversion,
  parseWatch,
  watchPayloads,
  type OwnedClick,
} from "../../src/analytics/live-wire.js";

const click = (i: number): OwnedClick => ({
  owner: `owner${i % 3}`.padEnd(16, "x"),
  click: {
    at: new Date(1_780_000_000_000 + i).toISOString(),
    link_id: `link${i}`.padEnd(16, "y"),
    alias: `alias-${i}`,
    domain: i % 2 ? "go.example.com" : "127.0.0.1:8080",
    country: i % 5 ? "FR" : "",
    device: "mobile",
    browser: "Mobile Safari",
    os: "iOS",
    referrer: i % 4 ? `ref-${"r".repeat(200)}-${i}.example` : "",
    source: i % 7 ? "link" : "qr",
    destination: i % 6 ? "default" : "variant:2",
    bot: i % 11 === 0,
  },
});

describe("live feed payloads", () => {
  it("splits a large batch under the limit and reads back the same clicks, the skipped counts once", () => {
    const clicks = Array.from({ length: 300 }, (_, i) => click(i));
    const skipped: Array<[string, number]> = [
      ["ownerA".padEnd(16, "x"), 12],
      ["ownerB".padEnd(16, "x"), 3],
    ];
    const payloads = clicksPayloads("inst1", clicks, skipped);
    expect(payloads.length).toBeGreaterThan(5);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(PAYLOAD_LIMIT);
    const read = payloads.map((p) => parseClicks(p)!);
    expect(read.every((m) => m.instance === "inst1")).toBe(true);
    expect(read.flatMap((m) => m.clicks)).toEqual(clicks);
    expect(read.flatMap((m) => m.skipped)).toEqual(skipped);
  });

  it("sends one payload for an empty batch with skipped counts only", () => {
    const payloads = clicksPayloads("inst1", [], [["o".padEnd(16, "x"), 4]]);
    expect(payloads).toHaveLength(1);
    expect(parseClicks(payloads[0]!)).toEqual({ instance: "inst1", clicks: [], skipped: [["o".padEnd(16, "x"), 4]] });
  });

  it("splits announcements of many owners, and ignores what is not one of its own payloads", () => {
    const owners = Array.from({ length: 1_000 }, (_, i) => `owner-${i}`.padEnd(16, "z"));
    const payloads = watchPayloads("inst2", owners);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(PAYLOAD_LIMIT);
    expect(payloads.flatMap((p) => (parseWatch(p) as { owners: string[] }).owners)).toEqual(owners);
    expect(parseWatch('{"i":"x","ask":1}')).toEqual({ instance: "x", ask: true });
    expect(parseWatch("not json")).toBeNull();
    expect(parseWatch('{"i":"x","o":[1]}')).toBeNull();
    expect(parseClicks('{"i":"x","s":[],"c":[["o",1e20,"l","a","d","","m","b","o","",0,"default",0],["o"]]}')).toEqual({
      instance: "x",
      clicks: [],
      skipped: [],
    });
  });

  it("a lead or sale travels to the other instances and back exactly; a malformed one is refused", () => {
    const sale = {
      type: "sale" as const,
      at: "2026-01-01T00:00:00.000Z",
      link_id: "l".repeat(16),
      alias: "spring",
      domain: "go.example.com",
      event_name: "Purchase",
      destination: "variant:2",
      amount: 4999,
      currency: "EUR",
    };
    const payload = conversionPayload("inst1", "owner1", sale);
    expect(payload.length).toBeLessThan(PAYLOAD_LIMIT);
    expect(parseConversion(payload)).toEqual({ instance: "inst1", owner: "owner1", conversion: sale });
    const lead = { ...sale, type: "lead" as const, destination: null, amount: null, currency: null };
    expect(parseConversion(conversionPayload("i", "o", lead))?.conversion).toEqual(lead);
    for (const bad of [
      "not json",
      JSON.stringify({ i: "x", o: "o" }),
      JSON.stringify({ i: "x", o: "o", v: { ...sale, type: "refund" } }),
      JSON.stringify({ i: "x", o: "o", v: { ...sale, amount: "4999" } }),
      JSON.stringify({ i: "x", o: 1, v: sale }),
      JSON.stringify({ i: "x", o: "o", v: { ...sale, alias: undefined } }),
    ]) {
      expect(parseConversion(bad), bad).toBeNull();
    }
  });
});
