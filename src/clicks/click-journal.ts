// The click journal: clicks buffered on the main thread survive a killed process. Once per event-loop
// turn the clicks recorded in it are appended (one write, no fsync: the kernel keeps it when the
// process dies, not when the machine does) to a segment file under DATA_DIR/click-journal/<id>/, one
// segment per batch; redirects are answered after that append. The click writer records in the
// transaction that commits a batch which segment it committed (click_journal, migration 010; on SQLite
// a batch's chunks also say up to which link), then the segment is deleted. At start, before serving,
// the segments a dead process left are replayed from where its writer stopped: nothing twice, nothing lost.
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import cluster from "node:cluster";
import { join } from "node:path";
import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../storage/schema.js";
import { type ClickBatch, type ClickBatchBuilder, FIELD, type JournalMark, WIDTH, nextBatchSeq } from "./click-buffer.js";
import { type SegmentClicks, appendClicks, readSegment } from "./journal-segment.js";

const JOURNAL_RE = /^[A-Za-z0-9_-]{16}$/;
const SEGMENT_RE = /^(\d{1,15})\.clk$/;
/** A journal failing again within this of its last logged failure is not logged again. */
const FAILURE_LOG_MS = 60_000;
/** Link numbers resolved per query at replay. */
const RESOLVE_CHUNK = 500;

/** The process that owns a journal: its host, pid and start time (Linux: /proc/<pid>/stat), so a reused pid is not taken for it. */
interface Owner {
  host: string;
  pid: number;
  started: string | null;
}

function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (start time in clock ticks since boot), counted after the command name's ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether a journal's owner is running (on this host): its journal is then live, not left over. */
function isRunning(owner: Owner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const started = startOf(owner.pid);
  return owner.started === null || started === null || started === owner.started;
}

function readOwner(dir: string): Owner | null {
  try {
    const o = JSON.parse(readFileSync(join(dir, "owner"), "utf8")) as Partial<Owner>;
    if (typeof o.host !== "string" || !Number.isSafeInteger(o.pid) || (o.started !== null && typeof o.started !== "string")) return null;
    return o as Owner;
  } catch {
    return null;
  }
}

/** The main thread's journal: this process's segments, appended once per event-loop turn. */
export class ClickJournal {
  readonly id = randomBytes(12).toString("base64url");
  private readonly dir: string;
  /** The segment of the batch being filled, its file once opened, and how much of the batch it holds. */
  private segment = 1;
  private fd: number | null = null;
  private clicks = 0;
  private strings = 0;
  /** A failed write: the rest of this segment's batch is not journaled (its clicks are still written as usual). */
  private broken = false;
  /** Writes are failing; when a failure was last logged, and whether its recovery is still to be logged. */
  private failing = false;
  private failureLoggedAt = -Infinity;
  private recoveryToLog = false;
  private builder: ClickBatchBuilder | null = null;
  /** Bytes on disk of each segment not done yet, and their sum (the backlog's size in /metrics). */
  private readonly sizes = new Map<number, number>();
  private totalBytes = 0;
  private scheduled = false;
  private answers: (() => void)[] = [];
  private closed = false;

  /** `root`: DATA_DIR/click-journal (0700; segments 0600). */
  constructor(
    private readonly root: string,
    private readonly log: Logger,
  ) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    this.dir = join(root, this.id);
    mkdirSync(this.dir, { mode: 0o700 });
    const owner: Owner = { host: hostname(), pid: process.pid, started: startOf(process.pid) };
    writeFileSync(join(this.dir, "owner"), JSON.stringify(owner), { mode: 0o600, flag: "wx" });
  }

  /** Bytes of this process's segments whose clicks are not committed yet. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** The segment the batch being filled will be sealed as. */
  get openSegment(): number {
    return this.segment;
  }

  private path(segment: number): string {
    return join(this.dir, `${segment}.clk`);
  }

  /** A click was pushed to `builder` (the batch being filled): it is appended at the end of this turn. */
  pending(builder: ClickBatchBuilder): void {
    this.builder = builder;
    this.schedule();
  }

  /** Runs `answer` after this turn's append: a visitor is answered once their click would survive a kill. */
  afterAppend(answer: () => void): void {
    this.answers.push(answer);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    if (this.builder !== null) this.append(this.builder);
    const answers = this.answers;
    this.answers = [];
    for (const answer of answers) {
      try {
        answer();
      } catch (err) {
        this.log.error({ err }, "answer after the click journal failed");
      }
    }
  };

  /** Appends what `builder` got since the last append. */
  private append(builder: ClickBatchBuilder): void {
    if (builder.length === this.clicks || this.broken || this.closed) return;
    const added = builder.since(this.clicks, this.strings);
    const n = builder.length - this.clicks;
    this.clicks = builder.length;
    this.strings = builder.stringCount;
    try {
      this.fd ??= openSync(this.path(this.segment), "wx", 0o600);
      const bytes = appendClicks(this.fd, n, added.strings, added.fields);
      this.sizes.set(this.segment, (this.sizes.get(this.segment) ?? 0) + bytes);
      this.totalBytes += bytes;
      this.failing = false;
      if (this.recoveryToLog) this.log.warn("click journal writes again");
      this.recoveryToLog = false;
    } catch (err) {
      this.broken = true;
      this.failed(err);
    }
  }

  /**
   * A write failed (a full disk): the segment's batch is not journaled past it. Logged when the failures
   * start, and when they start again at most once per FAILURE_LOG_MS: a disk that fills and frees by
   * turns (committed segments are deleted) must not flood the log.
   */
  private failed(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    const now = Date.now();
    if (now - this.failureLoggedAt < FAILURE_LOG_MS) return;
    this.failureLoggedAt = now;
    this.recoveryToLog = true;
    this.log.error({ err, segment: this.segment }, "click journal write failed: clicks are not journaled until it works again (they are still written)");
  }

  /**
   * The batch of `builder` is complete: the rest is appended, and its mark goes with it to the writer.
   * `whole`: every click of the batch is in its segment (no write failed), which can then stand in for
   * the batch in memory (load()).
   */
  seal(builder: ClickBatchBuilder): { mark: JournalMark; whole: boolean } {
    this.append(builder);
    const whole = !this.broken && !this.closed && this.fd !== null;
    if (this.fd !== null) closeSync(this.fd);
    const mark = { journal: this.id, segment: this.segment };
    this.segment++;
    this.fd = null;
    this.clicks = 0;
    this.strings = 0;
    this.broken = false;
    if (this.builder === builder) this.builder = null;
    return { mark, whole };
  }

  /** A batch is committed (or deliberately dropped): its segment goes. */
  done(mark: JournalMark | undefined): void {
    if (mark === undefined) return;
    this.totalBytes -= this.sizes.get(mark.segment) ?? 0;
    this.sizes.delete(mark.segment);
    try {
      unlinkSync(this.path(mark.segment));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.log.error({ err }, "click journal: cannot delete a committed segment");
    }
  }

  /** The clicks of one of this journal's sealed segments, read back synchronously (a read of clicks not written yet). */
  read(mark: JournalMark): SegmentClicks {
    return readSegment(this.path(mark.segment));
  }

  /** One of this journal's sealed segments as a batch again, for the writer (a batch that memory did not hold). */
  async load(db: Kysely<Database>, mark: JournalMark): Promise<ClickBatch> {
    return { ...(await this.batchOf(db, this.path(mark.segment), 0)), journal: mark };
  }

  /**
   * Replays the journals of processes that are gone, each from where its writer stopped (`write` records
   * the same marks, so a crash during the replay resumes it), then deletes them. Returns the clicks replayed.
   */
  async replay(db: Kysely<Database>, write: (batch: ClickBatch) => Promise<void>): Promise<number> {
    let replayed = 0;
    for (const entry of readdirSync(this.root, { withFileTypes: true })) {
      const id = entry.name;
      if (id === this.id || !entry.isDirectory() || !JOURNAL_RE.test(id)) continue;
      const owner = readOwner(join(this.root, id));
      if (owner !== null && isRunning(owner)) {
        // The primary or another worker of it (WORKERS=N) is expected; any other process is not.
        if (isSibling(owner.pid)) this.log.debug({ journal: id, pid: owner.pid }, "click journal of another worker: left to it");
        else this.log.warn({ journal: id, pid: owner.pid }, "click journal of a running process in DATA_DIR: not replayed (is DATA_DIR shared?)");
        continue;
      }
      // Claimed by moving it into this journal (atomic: one process wins), which a crash during the
      // replay leaves for the next start to finish.
      const dir = join(this.dir, id);
      try {
        renameSync(join(this.root, id), dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw err;
      }
      replayed += await this.replayDir(db, write, dir, id);
    }
    return replayed;
  }

  /** Replays one claimed journal (first those it had claimed itself), then deletes it and its row. */
  private async replayDir(db: Kysely<Database>, write: (batch: ClickBatch) => Promise<void>, dir: string, id: string): Promise<number> {
    let replayed = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && JOURNAL_RE.test(entry.name)) replayed += await this.replayDir(db, write, join(dir, entry.name), entry.name);
    }
    const at = await db.selectFrom("click_journal").select(["segment", "through_num"]).where("journal", "=", id).executeTakeFirst();
    const segments = readdirSync(dir)
      .map((f) => SEGMENT_RE.exec(f)?.[1])
      .filter((s): s is string => s !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    for (const segment of segments) {
      const committed = at === undefined ? -1 : Number(at.segment);
      if (segment < committed || (segment === committed && at?.through_num == null)) continue;
      const after = segment === committed ? Number(at?.through_num) : 0;
      const batch = await this.batchOf(db, join(dir, `${segment}.clk`), after);
      if (batch.length > 0) await write({ ...batch, journal: { journal: id, segment } });
      replayed += batch.length;
    }
    rmSync(dir, { recursive: true, force: true });
    // After the files: a crash in between leaves a row that nothing reads again, never a segment replayed twice.
    await db.deleteFrom("click_journal").where("journal", "=", id).execute();
    return replayed;
  }

  /** A segment's clicks as a batch, those of links still there and numbered above `after` (committed before). */
  private async batchOf(db: Kysely<Database>, file: string, after: number): Promise<ClickBatch> {
    const seg = readSegment(file);
    if (seg.ignored > 0) this.log.warn({ file, bytes: seg.ignored }, "click journal: a torn or unreadable end of a segment was ignored");
    const nums = new Set<number>();
    for (let o = FIELD.linkNum; o < seg.fields.length; o += WIDTH) if ((seg.fields[o] as number) > after) nums.add(seg.fields[o] as number);
    const idOf = new Map<number, string>();
    const all = [...nums];
    for (let i = 0; i < all.length; i += RESOLVE_CHUNK) {
      const rows = await db
        .selectFrom("links")
        .select(["id", "num"])
        .where("num", "in", all.slice(i, i + RESOLVE_CHUNK))
        .execute();
      for (const r of rows) idOf.set(Number(r.num), r.id);
    }
    // Clicks of links deleted since are dropped, as the writers drop them.
    const fields = new Float64Array(seg.fields.length);
    const links: string[] = [];
    for (let o = 0; o < seg.fields.length; o += WIDTH) {
      const id = idOf.get(seg.fields[o + FIELD.linkNum] as number);
      if (id === undefined) continue;
      fields.set(seg.fields.subarray(o, o + WIDTH), links.length * WIDTH);
      links.push(id);
    }
    return { seq: nextBatchSeq(), strings: seg.strings, links, fields: fields.slice(0, links.length * WIDTH), length: links.length };
  }

  /** After the last batch is committed: this process's journal and its row go. */
  async close(db: Kysely<Database>): Promise<void> {
    this.closed = true;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.dir, { recursive: true, force: true });
    await db.deleteFrom("click_journal").where("journal", "=", this.id).execute();
  }
}

/** SQLite: records, in the transaction of a batch's chunk, that its segment is committed (for links up to `throughNum`, or whole). */
export function sqliteJournalMarker(handle: SQLite.Database): (mark: JournalMark, throughNum: number | null) => void {
  let st: SQLite.Statement | null = null;
  return (mark, throughNum) => {
    st ??= handle.prepare(
      "INSERT INTO click_journal (journal, segment, through_num) VALUES (?, ?, ?) " +
        "ON CONFLICT (journal) DO UPDATE SET segment = excluded.segment, through_num = excluded.through_num",
    );
    st.run(mark.journal, mark.segment, throughNum);
  };
}

/** PostgreSQL: records, in the transaction of a batch, that its segment is committed. */
export async function markPostgres(trx: Kysely<Database>, mark: JournalMark): Promise<void> {
  await trx
    .insertInto("click_journal")
    .values({ journal: mark.journal, segment: mark.segment, through_num: null })
    .onConflict((oc) => oc.column("journal").doUpdateSet((eb) => ({ segment: eb.ref("excluded.segment"), through_num: null })))
    .execute();
}

/** Whether `pid` is this worker's primary or another of its workers (Linux: their parent in /proc; elsewhere never). */
function isSibling(pid: number): boolean {
  if (!cluster.isWorker) return false;
  if (pid === process.ppid) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.ppid;
  } catch {
    return false;
  }
}
