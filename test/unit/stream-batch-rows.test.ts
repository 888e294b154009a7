// streams/outbox.ts's batchRows: one outbox row per sink and batch, each event whole, in the clicks' order.
import { describe, expect, it } from "vitest";
import { batchRows, decodeBatch } from "../../src/streams/outbox.js";
import type { ClickRow } from "../../src/clicks/click-groups.js";

const click = (num: number, at: number, device = "desktop"): ClickRow =>
  ({ link_num: num, at, country: "FR", device, os: "iOS", browser: "Safari", referrer: "direct", is_bot: 0, destination: null, qr: 0 }) as unknown as ClickRow;
const links = new Map([
  [1, { id: "L1", owner_id: "alice", alias: "one", domain: "", url: "https://example.com/1", folder_id: null }],
  [2, { id: "L2", owner_id: "bob", alias: "two", domain: "go.example", url: 'https://example.com/"2"', folder_id: "F1" }],
]);

describe("batchRows", () => {
  it("gives the operator's sink every click and an account's sink its own, in order, with stable ids", () => {
    const rows = [click(1, 1000), click(2, 900), click(3, 950), click(1, 1100, "phone")];
    const out = batchRows(
      [
        { id: "env:amqp", owner_id: null },
        { id: "acct", owner_id: "bob" },
        { id: "idle", owner_id: "carol" },
      ],
      links,
      rows,
      10,
      "j.7",
    );
    expect(out.map((o) => [o.sink_id, o.n, o.at, o.event_id])).toEqual([
      ["env:amqp", 3, 900, "j.7.10"],
      ["acct", 1, 900, "j.7.10"],
    ]);
    const all = decodeBatch(out[0]!.events);
    // Link 3 is gone: no event for its click; the others keep their order and their row's id.
    expect(all.map((e) => [e.id, e.link_id, e.owner_id])).toEqual([
      ["j.7.10", "L1", "alice"],
      ["j.7.11", "L2", "bob"],
      ["j.7.13", "L1", "alice"],
    ]);
    expect(all[1]).toMatchObject({ alias: "two", domain: "go.example", url: 'https://example.com/"2"', folder_id: "F1" });
    expect(all[0]!.folder_id).toBeNull();
    expect(all[2]!.click).toEqual({
      at: new Date(1100).toISOString(),
      country: "FR",
      device: "phone",
      os: "iOS",
      browser: "Safari",
      referrer_host: null,
      bot: false,
      destination: "default",
      source: "link",
    });
    expect(decodeBatch(out[1]!.events).map((e) => e.id)).toEqual(["j.7.11"]);
    // Each link once per row, however many of its clicks it holds.
    expect((JSON.parse(out[0]!.events) as { l: unknown[] }).l).toHaveLength(2);
  });

  it("reads a row written before folders (five values per link) as links in no folder", () => {
    const old = JSON.stringify({
      p: "j.1",
      l: [["L1", "alice", "one", "", "https://example.com/1"]],
      e: [[0, 4, 5, "DE", "desktop", null, null, null, 0, "default", 0]],
    });
    const [e] = decodeBatch(old);
    expect(e).toMatchObject({ id: "j.1.4", link_id: "L1", owner_id: "alice", folder_id: null });
  });

  it("writes nothing for a batch no sink takes", () => {
    expect(batchRows([{ id: "acct", owner_id: "carol" }], links, [click(1, 1)], 0, "p")).toEqual([]);
    expect(batchRows([], links, [click(1, 1)], 0, "p")).toEqual([]);
  });
});
