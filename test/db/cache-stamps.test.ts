// Issue 42: a link's change (its creation, an edit) made on instance B reaches instance A through LISTEN
// later than A's first visit read the link. The notification carries a snapshot taken after the change
// committed: A's entry, read with a snapshot that covers it, already holds the change and stays. A change
// committed after A's read still drops the entry, and one heard while the read is in flight does not keep
// a row read before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { type ChangeFeed, openStorage, type Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { LINK_CHANNEL, LinkChanges } from "../../src/links/changes.js";
import { LinkCache, type Loaded } from "../../src/redirect/link-cache.js";
import { parseSnapshot } from "../../src/storage/pg-snapshot.js";
import type { LinkRow } from "../../src/storage/schema.js";
import { waitFor } from "../helpers/wait.js";

const ROW = {
  ...{ id: "l1", num: 1, domain: "", alias: "fresh", url: "", ios_url: null, android_url: null, expires_at: null, max_clicks: null },
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

describe.runIf(process.env.TEST_DATABASE_URL)("change stamps on PostgreSQL: the cache keeps what it just read", () => {
  let db: TestDatabase;
  let a: Storage;
  let b: Storage;

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    a = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
    await migrateToLatest(a);
    b = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
    await sql`CREATE TABLE stamp_probe (alias text PRIMARY KEY, url text NOT NULL)`.execute(a.db);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  /** `storage`'s feed with its notifications held back until release(). */
  function lateFeed(storage: Storage): { feed: ChangeFeed; release(): void; held(): number } {
    const held: Array<() => void> = [];
    let holding = true;
    const feed: ChangeFeed = {
      publish: (channel, payload, stamped) => storage.feed.publish(channel, payload, stamped),
      subscribe: (channel, fn) => storage.feed.subscribe(channel, (payload) => (holding ? held.push(() => fn(payload)) : fn(payload))),
      onResync: (fn) => storage.feed.onResync(fn),
      listened: () => storage.feed.listened(),
    };
    return {
      feed,
      held: () => held.length,
      release() {
        holding = false;
        for (const deliver of held.splice(0)) deliver();
      },
    };
  }

  /** Instance B's edit: committed, then announced. */
  async function editOnB(alias: string, url: string): Promise<void> {
    await sql`INSERT INTO stamp_probe (alias, url) VALUES (${alias}, ${url}) ON CONFLICT (alias) DO UPDATE SET url = EXCLUDED.url`.execute(b.db);
    await new LinkChanges(b.feed).publish([{ domain: "", alias }]);
  }

  /** A's read of the link: the row and the snapshot of the same statement, as LinkService.findFresh. */
  function reader(gate?: Promise<void>): { load: (d: string, alias: string) => Promise<Loaded>; count(): number } {
    let n = 0;
    return {
      count: () => n,
      load: async (_d, alias) => {
        n++;
        const r = await sql<{ url: string; seen: string }>`SELECT url, pg_current_snapshot()::text AS seen FROM stamp_probe WHERE alias = ${alias}`.execute(
          a.db,
        );
        await gate;
        const found = r.rows[0];
        const seen = found ? parseSnapshot(found.seen) : null;
        if (!found || !seen) throw new Error("no row or snapshot");
        return { row: { ...ROW, alias, url: found.url }, seen };
      },
    };
  }

  it("B's creation heard after A's first visit keeps A's entry; B's later edit drops it", async () => {
    const late = lateFeed(a);
    const read = reader();
    const cache = new LinkCache(100, read.load, new LinkChanges(late.feed));
    await a.feed.listened();
    await editOnB("fresh", "https://example.com/v1");
    expect((await cache.get("", "fresh"))?.url).toBe("https://example.com/v1");
    await waitFor(() => late.held() >= 1 || null, { what: "B's notification at A" });
    late.release();
    expect((await cache.get("", "fresh"))?.url).toBe("https://example.com/v1");
    expect(read.count()).toBe(1);

    // An edit committed after A's read: the entry goes, the next visit reads v2.
    let heard = 0;
    a.feed.subscribe(LINK_CHANNEL, () => heard++);
    await editOnB("fresh", "https://example.com/v2");
    await waitFor(() => heard >= 1 || null, { what: "B's edit at A" });
    expect((await cache.get("", "fresh"))?.url).toBe("https://example.com/v2");
    expect(read.count()).toBe(2);
  });

  it("a notification heard while the read is in flight: kept when the read covers it, not when it does not", async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const late = lateFeed(a);
    const read = reader(gate);
    const cache = new LinkCache(100, read.load, new LinkChanges(late.feed));
    await a.feed.listened();
    await editOnB("inflight", "https://example.com/one");
    await waitFor(() => late.held() >= 1 || null, { what: "B's notification at A" });
    const first = cache.get("", "inflight");
    // The read has its snapshot (after B's commit) when the notification is heard.
    await waitFor(() => read.count() >= 1 || null, { what: "the read" });
    await new Promise((r) => setTimeout(r, 50));
    late.release();
    open();
    expect((await first)?.url).toBe("https://example.com/one");
    expect((await cache.get("", "inflight"))?.url).toBe("https://example.com/one");
    expect(read.count()).toBe(1);
  });

  it("a read older than the change it hears of is not stored", async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const read = reader(gate);
    const changes = new LinkChanges(a.feed);
    const cache = new LinkCache(100, read.load, changes);
    let heard = 0;
    a.feed.subscribe(LINK_CHANNEL, () => heard++);
    await a.feed.listened();
    await editOnB("older", "https://example.com/old");
    await waitFor(() => heard >= 1 || null, { what: "the creation at A" });
    const first = cache.get("", "older");
    await new Promise((r) => setTimeout(r, 50));
    // B edits after A's read took its snapshot; A hears of it before the read returns.
    await editOnB("older", "https://example.com/new");
    await waitFor(() => heard >= 2 || null, { what: "the edit at A" });
    open();
    expect((await first)?.url).toBe("https://example.com/old");
    expect((await cache.get("", "older"))?.url).toBe("https://example.com/new");
    expect(read.count()).toBe(2);
  });
});
