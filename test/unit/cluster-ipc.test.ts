// WORKERS=N's IPC pieces in one process: the change feed a worker publishes on, the click writer it
// calls in the primary, and the primary's answer (batch numbers made the worker's own).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { runPrimary } from "../../src/cluster/primary.js";
import { ClusterFeed } from "../../src/cluster/cluster-feed.js";
import { answerCall, RemoteClickWriter } from "../../src/cluster/remote-writer.js";
import type { ClickWriter } from "../../src/clicks/click-writer.js";
import type { ClickBatch } from "../../src/clicks/click-buffer.js";
import type { WriterCall } from "../../src/cluster/messages.js";
import { isDatabaseUnavailable } from "../../src/storage/unavailable.js";
import { DatabaseUnavailableError } from "../../src/storage/unavailable.js";

const batch = (seq: number): ClickBatch => ({ seq, strings: [], links: [], fields: new Float64Array(0), length: 0 });

/** A writer that records what it is asked (the real ones run in test/db/workers.test.ts). */
function recordingWriter(fail?: Error): ClickWriter & { seqs: number[] } {
  const seqs: number[] = [];
  return {
    seqs,
    write: async (b) => {
      if (fail) throw fail;
      seqs.push(b.seq);
    },
    flushRollups: async () => undefined,
    recover: async () => undefined,
    countLimited: async (counts) => counts.map((c) => c.maxClicks > 1),
  };
}

describe("cluster IPC", () => {
  it("the feed: heard at once in the publishing worker, sent to the primary, and a relayed change heard", async () => {
    const sent: unknown[] = [];
    const feed = new ClusterFeed((m) => sent.push(m));
    const heard: string[] = [];
    feed.subscribe("link_changed", (p) => heard.push(p));
    await feed.publish("link_changed", '["","abc"]');
    expect(heard).toEqual(['["","abc"]']);
    expect(sent).toEqual([{ snip: "feed", channel: "link_changed", payload: '["","abc"]' }]);
    feed.hear({ snip: "feed", channel: "link_changed", payload: '["","xyz"]' });
    feed.hear({ snip: "writer-reply", id: 1, ok: true });
    feed.hear("NODE_CLUSTER");
    feed.hear(null);
    expect(heard).toEqual(['["","abc"]', '["","xyz"]']);
    expect(feed.shared).toBe(true);
  });

  it("two workers' batch 7 are two batches at the one writer; a retry of one keeps its number", async () => {
    const w = recordingWriter();
    for (const worker of [1, 2, 1]) {
      const r = await answerCall(w, worker, { snip: "writer", id: 9, op: "write", batch: batch(7) });
      expect(r).toEqual({ snip: "writer-reply", id: 9, ok: true, value: undefined });
    }
    expect(w.seqs).toEqual([2 ** 32 + 7, 2 * 2 ** 32 + 7, 2 ** 32 + 7]);
    const counts = [
      { linkId: "l", maxClicks: 100, at: 1 },
      { linkId: "m", maxClicks: 1, at: 1 },
    ];
    expect(await answerCall(w, 1, { snip: "writer", id: 3, op: "countLimited", counts })).toMatchObject({ ok: true, value: [true, false] });
  });

  it("a worker's call: answered by its id, failures as errors (a lost database as unavailable), no primary as a refusal", async () => {
    const out: WriterCall[] = [];
    const remote = new RemoteClickWriter((m) => (out.push(m as WriterCall), true));
    const limited = remote.countLimited([{ linkId: "l", maxClicks: 5, at: 1 }]);
    const written = remote.write(batch(1));
    expect(out.map((m) => m.id)).toEqual([1, 2]);
    remote.hear(await answerCall(recordingWriter(), 1, out[0]!));
    remote.hear(await answerCall(recordingWriter(new DatabaseUnavailableError("down")), 1, out[1]!));
    expect(await limited).toEqual([true]);
    const err = await written.catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    // An answer to no call (a late one, a stranger's) changes nothing.
    remote.hear({ snip: "writer-reply", id: 77, ok: true });
    const gone = new RemoteClickWriter(() => false);
    await expect(gone.write(batch(1))).rejects.toThrow("the primary is gone");
    // Roll-ups and recovery are the primary's: nothing is sent.
    await remote.flushRollups();
    await remote.recover();
    expect(out).toHaveLength(2);
  });

  it("WORKERS=2 on an in-memory SQLite database is refused before any worker starts", async () => {
    const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), "snip-w-")), DATABASE_URL: "sqlite::memory:", WORKERS: "2" });
    await expect(runPrimary(config)).rejects.toThrow(
      new ConfigError("WORKERS", "needs a database file: an in-memory SQLite database cannot be shared by processes"),
    );
  });
});
