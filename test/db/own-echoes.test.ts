// A link's own change comes back through PostgreSQL's LISTEN after this instance applied it: that echo
// must not drop what the cache loaded since (issue 42: a link's first visit cached, then its creation's
// echo arrived and dropped it, and the next visit took the slow path). Another instance's change of
// the same link still drops it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { type ChangeFeed, openStorage, type Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { LINK_CHANNEL, LinkChanges } from "../../src/links/changes.js";
import { DOMAIN_CHANNEL, DomainChanges } from "../../src/domains/domain-changes.js";
import { LinkCache } from "../../src/redirect/link-cache.js";
import type { LinkRow } from "../../src/storage/schema.js";
import { waitFor } from "../helpers/wait.js";

const ROW = {
  ...{ id: "l1", num: 1, domain: "", alias: "echo", url: "https://example.com/", ios_url: null, android_url: null, expires_at: null, max_clicks: null },
  ...{
    password_hash: null,
    owner_id: null,
    disabled_status: null,
    expired_url: null,
    rules: null,
    split: null,
    og_title: null,
    og_description: null,
    og_image: null,
  },
} as unknown as LinkRow;

describe.runIf(process.env.TEST_DATABASE_URL)("own change echoes on PostgreSQL", () => {
  let db: TestDatabase;
  let a: Storage;
  let b: Storage;

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    a = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
    await migrateToLatest(a);
    b = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  /** Resolves once `storage`'s listener has received `count` notifications on `channel`. */
  function heard(storage: Storage, channel: string): () => number {
    let n = 0;
    storage.feed.subscribe(channel, () => n++);
    return () => n;
  }

  /** `storage`'s feed, its notifications held back until release(): an echo that comes late, after a visit. */
  function lateFeed(storage: Storage): { feed: ChangeFeed; release(): void } {
    const held: Array<() => void> = [];
    let holding = true;
    const feed: ChangeFeed = {
      publish: (channel, payload) => storage.feed.publish(channel, payload),
      subscribe: (channel, fn) => storage.feed.subscribe(channel, (payload) => (holding ? held.push(() => fn(payload)) : fn(payload))),
      onResync: (fn) => storage.feed.onResync(fn),
      listened: () => storage.feed.listened(),
    };
    return {
      feed,
      release() {
        holding = false;
        for (const deliver of held.splice(0)) deliver();
      },
    };
  }

  it("a link cached after its own change stays cached when the echo arrives late; another instance's change drops it", async () => {
    let loads = 0;
    const late = lateFeed(a);
    const changes = new LinkChanges(late.feed);
    const cache = new LinkCache(100, async () => (loads++, ROW), changes);
    const echoes = heard(a, LINK_CHANNEL);
    await a.feed.listened();
    await changes.publish([{ domain: "", alias: "echo" }]);
    await cache.get("", "echo");
    expect(loads).toBe(1);
    await waitFor(() => echoes() >= 1 || null, { what: "the echo" });
    late.release();
    await cache.get("", "echo");
    expect(loads).toBe(1);

    // The same change from instance B: A drops its entry.
    await new LinkChanges(b.feed).publish([{ domain: "", alias: "echo" }]);
    await waitFor(() => echoes() >= 2 || null, { what: "B's change" });
    await cache.get("", "echo");
    expect(loads).toBe(2);
  });

  it("a custom domain's own change is applied once; another instance's is applied", async () => {
    const seen: string[] = [];
    const changes = new DomainChanges(a.feed);
    changes.listen((h) => void seen.push(h));
    const heardA = heard(a, DOMAIN_CHANNEL);
    await a.feed.listened();
    await changes.publish("go.example");
    await waitFor(() => heardA() >= 1 || null, { what: "the echo" });
    expect(seen).toEqual(["go.example"]);
    await new DomainChanges(b.feed).publish("go.example");
    await waitFor(() => heardA() >= 2 || null, { what: "B's change" });
    expect(seen).toEqual(["go.example", "go.example"]);
  });
});
