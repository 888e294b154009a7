// PostgreSQL snapshots ("xmin:xmax:xip,..." as pg_current_snapshot() spells them) as change stamps: a
// change notification carries a snapshot taken after the change committed, a cached row the snapshot of
// the statement that read it. The row already holds the change when every transaction committed in the
// change's snapshot is committed in the row's too; then the late notification has nothing to drop.

export interface Snapshot {
  xmin: number;
  xmax: number;
  /** Transactions in progress when the snapshot was taken (all >= xmin, < xmax). */
  xip: ReadonlySet<number>;
}

const SNAPSHOT_RE = /^(\d{1,15}):(\d{1,15}):((?:\d{1,15})(?:,\d{1,15}){0,9999})?$/;

/** The snapshot, or null for anything else (then nothing is known to be newer than the change). */
export function parseSnapshot(text: string): Snapshot | null {
  const m = SNAPSHOT_RE.exec(text);
  if (!m) return null;
  const xmin = Number(m[1]);
  const xmax = Number(m[2]);
  if (xmax < xmin) return null;
  const xip = new Set<number>();
  if (m[3]) for (const x of m[3].split(",")) xip.add(Number(x));
  return { xmin, xmax, xip };
}

/**
 * Whether `seen` (the row's) sees every transaction `change` sees as committed. Conservative: false may
 * be answered where true holds (a transaction aborted, a later one in progress), never the reverse.
 */
export function covers(seen: Snapshot, change: Snapshot): boolean {
  // A transaction in [seen.xmax, change.xmax) may be committed in `change` and is invisible in `seen`.
  if (change.xmax > seen.xmax) return false;
  // One in progress for `seen` must be in progress for `change` too, or not yet begun then.
  for (const x of seen.xip) if (x < change.xmax && !change.xip.has(x)) return false;
  return true;
}
