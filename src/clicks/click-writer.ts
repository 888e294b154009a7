// The click sink's interface: what the recorder asks of a writer, whichever engine and thread it runs on.
import type { Group } from "./click-groups.js";
import type { CountMany } from "./limit-counts.js";
import type { ClickBatch } from "./click-buffer.js";

/** Clicks stored raw but not yet in the roll-ups and counts, as groups, and the roll-up state they complement. */
export interface HeldBack {
  state: string;
  groups: Group[];
}

/**
 * PostgreSQL: clicks this process answered whose batch is not committed yet (in the recorder's buffer,
 * queued for the writer, inside it or waiting for a retry), as groups by the segment their batch is
 * committed as. Each batch's transaction records its segment in `journal`'s click_journal row
 * (markPostgres), and batches commit in segment order: a read that finds segment S there in its
 * snapshot has every batch up to S in the rows it reads, and none after.
 */
export interface Uncommitted {
  journal: string;
  batches: Array<{ segment: number; groups: Group[] }>;
}

export interface ClickWriter {
  /** Writes one batch (SQLite: in transactions of whole links, resumed where it stopped on a retry); clicks of links deleted meanwhile are dropped (SQLite: by the next roll-up). */
  write(batch: ClickBatch): Promise<void>;
  /**
   * PostgreSQL: several sealed batches, oldest first, in one transaction committed as the last one's
   * journal segment (a writer behind the load: more clicks per link and statement). Where it is
   * missing (SQLite, whose batches commit in chunks by link), batches are written one by one.
   */
  writeMany?(batches: ClickBatch[]): Promise<void>;
  /** Writes roll-ups held back by write() (SQLite); a no-op where write() already wrote them (PostgreSQL). */
  flushRollups(): Promise<void>;
  /** Folds raw clicks missing from the roll-ups (after a crash) into them, each once. */
  recover(): Promise<void>;
  /** Releases what the writer holds (a worker thread); called after the last flush. */
  close?(): Promise<void>;
  /** Where roll-ups are held back in the writer's memory (SQLite): the groups of these links not rolled up yet. */
  heldBack?(linkNums: number[] | null): Promise<HeldBack>;
  /**
   * Counts clicks of click-limited links, in order, each if its link's limit allows (writers with a
   * connection of their own): whether each was counted. The recorder sends a turn's counts together.
   */
  countLimited?: CountMany;
}
