// src/click-listeners.ts: every listener of "clicked" and "stored" registered in LISTENERS' order, each
// called once per click it wants with the click's values, none called for a click it does not want, and a
// listener that throws stopping neither the others nor the redirect.
import { describe, expect, it } from "vitest";
import { LISTENERS, STORED, STORED_LISTENERS, clickedListeners, type ClickedServices } from "../../src/click-listeners.js";
import { ClickDispatcher, type ClickedListeners } from "../../src/redirect/click-event.js";
import { streamOutbox } from "../../src/streams/outbox.js";
import { trackedClicksListener } from "../../src/conversions/tracked-clicks.js";
import { pendingMatchesListener } from "../../src/deeplinks/pending-matches.js";
import type { RawLiveClick } from "../../src/analytics/live-feed.js";

const link = { id: "L1", url: "https://example.com/", owner_id: "alice" };
const visit = { host: "Go.Example.", alias: "promo", userAgent: "UA", referer: "https://ref.example/", ip: "203.0.113.9", country: "FR", qr: true, query: "" };

interface Calls {
  hooks: unknown[][];
  live: RawLiveClick[];
  warned: unknown[];
  domains: string[];
}

function services(opts: { hookOwners?: string[]; watched?: string[]; hooksThrow?: boolean } = {}): { s: ClickedServices; calls: Calls } {
  const calls: Calls = { hooks: [], live: [], warned: [], domains: [] };
  const watched = new Set(opts.watched ?? []);
  const s: ClickedServices = {
    clickDeliveries: {
      owners: new Map((opts.hookOwners ?? []).map((o) => [o, []])),
      linkClicked: (...args: unknown[]) => {
        if (opts.hooksThrow) throw new Error("queue broke");
        calls.hooks.push(args);
      },
    },
    live: { active: watched.size > 0, watches: (o: string) => watched.has(o), clicked: (c: RawLiveClick) => void calls.live.push(c) },
    log: { warn: (...args: unknown[]) => void calls.warned.push(args) },
  } as unknown as ClickedServices;
  return { s, calls };
}

function dispatcher(to: ClickedListeners, calls: Calls): ClickDispatcher {
  return new ClickDispatcher(to, (host) => (calls.domains.push(host), "go.example"));
}

describe("the click listeners' registry", () => {
  it("registers every listener LISTENERS names, in its order, for its event", () => {
    const { s } = services();
    expect(LISTENERS.map((l) => `${l.event}:${l.name}`)).toEqual([
      "clicked:webhooks",
      "clicked:live feed",
      "stored:stream outbox",
      "stored:tracked clicks",
      "stored:pending matches",
    ]);
    expect(clickedListeners(s).listeners.map((l) => l.name)).toEqual(LISTENERS.filter((l) => l.event === "clicked").map((l) => l.name));
    expect(STORED_LISTENERS.map((l) => l.name)).toEqual(LISTENERS.filter((l) => l.event === "stored").map((l) => l.name));
    expect(STORED_LISTENERS).toEqual([streamOutbox, trackedClicksListener, pendingMatchesListener]);
    expect(STORED.listeners).toBe(STORED_LISTENERS);
    expect(STORED.thread.href).toMatch(/\/src\/click-writer-thread-tsx\.mjs$/);
    for (const l of LISTENERS) expect(l.guarantee).toMatch(/^.+: at (most|least) once, .+ Unwanted: .+\.$/);
  });

  it("calls each clicked listener once per click it wants, with the click's values, and works the domain out once", () => {
    const { s, calls } = services({ hookOwners: ["alice"], watched: ["alice"] });
    const d = dispatcher(clickedListeners(s), calls);
    d.clicked(link, visit, 1_700_000_000_000, "rule:1");
    d.clicked(link, visit, 1_700_000_000_500, null);
    expect(calls.hooks).toEqual([
      ["alice", link, "go.example", visit, 1_700_000_000_000, "rule:1"],
      ["alice", link, "go.example", visit, 1_700_000_000_500, "default"],
    ]);
    expect(calls.live).toEqual([
      {
        owner: "alice",
        at: 1_700_000_000_000,
        linkId: "L1",
        alias: "promo",
        domain: "go.example",
        userAgent: "UA",
        referer: "https://ref.example/",
        ip: "203.0.113.9",
        country: "FR",
        qr: true,
        destination: "rule:1",
      },
      {
        owner: "alice",
        at: 1_700_000_000_500,
        linkId: "L1",
        alias: "promo",
        domain: "go.example",
        userAgent: "UA",
        referer: "https://ref.example/",
        ip: "203.0.113.9",
        country: "FR",
        qr: true,
        destination: null,
      },
    ]);
    expect(calls.domains).toEqual(["Go.Example.", "Go.Example."]);
    expect(calls.warned).toEqual([]);
  });

  it("hands a click to no listener that does not want its owner, and builds no event for it", () => {
    const { s, calls } = services({ hookOwners: ["bob"], watched: ["carol"] });
    const d = dispatcher(clickedListeners(s), calls);
    d.clicked(link, visit, 1, null);
    d.clicked({ ...link, owner_id: null }, visit, 2, null);
    expect(calls.hooks).toEqual([]);
    expect(calls.live).toEqual([]);
    expect(calls.domains).toEqual([]);
  });

  it("gives each listener only the owners it wants", () => {
    const { s, calls } = services({ hookOwners: ["alice"], watched: ["bob"] });
    const d = dispatcher(clickedListeners(s), calls);
    d.clicked(link, visit, 1, null);
    d.clicked({ ...link, id: "L2", owner_id: "bob" }, visit, 2, "ios");
    expect(calls.hooks.map((c) => [c[0], c[4]])).toEqual([["alice", 1]]);
    expect(calls.live.map((c) => [c.owner, c.linkId, c.destination])).toEqual([["bob", "L2", "ios"]]);
  });

  it("logs a listener that throws and still calls the others; the redirect's call returns", () => {
    const { s, calls } = services({ hookOwners: ["alice"], watched: ["alice"], hooksThrow: true });
    const d = dispatcher(clickedListeners(s), calls);
    expect(() => d.clicked(link, visit, 7, null)).not.toThrow();
    expect(calls.live.map((c) => c.at)).toEqual([7]);
    expect(calls.warned).toHaveLength(1);
    const [fields, message] = calls.warned[0] as [{ err: Error; listener: string }, string];
    expect([fields.listener, fields.err.message, message]).toEqual(["webhooks", "queue broke", "a click listener failed"]);
  });

  it("keeps going when a listener's own check throws", () => {
    const failed: string[] = [];
    const took: number[] = [];
    const d = new ClickDispatcher(
      {
        listeners: [
          {
            name: "broken",
            wants: () => {
              throw new Error("no");
            },
            clicked: () => took.push(-1),
          },
          { name: "fine", wants: () => true, clicked: (e) => took.push(e.at) },
        ],
        failed: (name) => failed.push(name),
      },
      () => "",
    );
    d.clicked(link, visit, 3, null);
    expect([failed, took]).toEqual([["broken"], [3]]);
  });
});
