// CSV export of a link's statistics: the daily series, then every click of the range, streamed (csv-stringify
// does the RFC 4180 quoting; cells that a spreadsheet would run as a formula are neutralised).
//
// The click log is read page by page with a keyset cursor on (at, id) and written as the client reads
// it (back-pressure: no page is read before the previous one has been taken), so memory stays flat
// whatever the count, and a client that goes away stops the reads. On SQLite a long tail's clicks may
// still sit in click_staging until a roll-up moves them into clicks (docs/scaling.md): each page reads
// both tables in one statement (one snapshot), so a click moved between two pages is listed once.
import { Readable, type Transform, pipeline } from "node:stream";
import { type Selectable, sql } from "kysely";
import { stringify, type Options } from "csv-stringify";
import type { Db, Dialect } from "../storage/db.js";
import type { ClicksTable, LinkRow } from "../storage/schema.js";
import type { DayRange } from "./range.js";
import type { Period } from "./period.js";
import type { StatsService } from "./stats.js";

/** Clicks read per statement (about 1 MB of rows held at a time). */
export const CSV_PAGE = 5_000;

export const CSV_OPTIONS: Options = {
  bom: true, // spreadsheets read the file as UTF-8
  record_delimiter: "windows", // CRLF (RFC 4180)
  quote_record_delimiter: true, // also quote a lone CR or LF inside a field
  escape_formulas: true, // leading = + - @ tab CR get a "'" prefix (OWASP CSV injection)
};

/** What an export reads ahead of a client that does not keep up. */
const EXPORT_BUFFER_BYTES = 16 * 1024;

export const DAILY_HEADER = ["date", "clicks"];
export const LOG_HEADER = ["time", "country", "device", "os", "browser", "referrer", "bot", "destination"];

type Cell = string | number;

/** Writes records as CSV text with the export's options (tests and small exports). */
export function toCsv(records: Iterable<Cell[]> | AsyncIterable<Cell[]>): Transform {
  const out = stringify(CSV_OPTIONS);
  pipeline(Readable.from(records, { objectMode: true }), out, () => undefined);
  return out;
}

/** "snip-<alias>-<from>-<to>.csv", the alias reduced to characters safe in a header. */
export function csvFilename(alias: string, range: Pick<DayRange, "from" | "to">): string {
  const safe = alias.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "link";
  return `snip-${safe}-${range.from}-${range.to}.csv`;
}

const LOG_COLUMNS = ["id", "at", "country", "device", "os", "browser", "referrer", "is_bot", "destination"] as const;

/** A click of the log; `src` 0 when read from clicks, 1 from click_staging. */
export type LogRow = Pick<Selectable<ClicksTable>, (typeof LOG_COLUMNS)[number]> & { src: number };

/**
 * Every click of a link in a range, in time order, a page (an array of rows) at a time.
 *
 * A page is up to `pageSize` rows of clicks after the cursor, and (SQLite) the staged clicks from the
 * previous page's last time up to, not including, this page's last time (up to the range's end on
 * the last page). A staged click moved into clicks between two pages gets a new id, greater than
 * any before it: if its time is before the cursor's it was listed from click_staging already; at or
 * after it, the clicks cursor lists it. Staged rows are a long tail's (fewer than 4 clicks of a link
 * per written chunk), so a page holds few of them; click_staging has no index, and each page scans it.
 */
export async function* clickLog(
  db: Db,
  dialect: Dialect,
  linkNum: number,
  range: Pick<DayRange, "startMs" | "endMs">,
  pageSize = CSV_PAGE,
): AsyncGenerator<LogRow[]> {
  let cursor: { at: number; id: number } | null = null;
  let stagedFrom = range.startMs;
  for (;;) {
    const after = cursor;
    const clicks = db
      .selectFrom("clicks")
      .select(LOG_COLUMNS)
      .where("link_num", "=", linkNum)
      .where("at", "<", range.endMs)
      .where("at", ">=", after?.at ?? range.startMs) // the index's range, refined below
      // Not the row value (at, id) > (?, ?): with it SQLite's planner (after ANALYZE, one link holding
      // most clicks) skip-scanned the index and sorted the whole range for every page.
      .$if(after !== null, (q) => q.where((eb) => eb.or([eb("at", ">", after!.at), eb.and([eb("at", "=", after!.at), eb("id", ">", after!.id)])])))
      .orderBy("at")
      .orderBy("id")
      .limit(pageSize);
    let rows: LogRow[];
    if (dialect === "sqlite") {
      const upTo = sql<number>`(CASE WHEN (SELECT count(*) FROM page) < ${pageSize} THEN ${range.endMs} ELSE (SELECT max(at) FROM page) END)`;
      rows = (await db
        .with("page", () => clicks)
        .selectFrom("page")
        .select([...LOG_COLUMNS, sql<number>`0`.as("src")])
        .unionAll((eb) =>
          eb
            .selectFrom("click_staging")
            .select([...LOG_COLUMNS, sql<number>`1`.as("src")])
            .where("link_num", "=", linkNum)
            .where("at", ">=", stagedFrom)
            .where("at", "<", upTo),
        )
        .orderBy("at")
        .orderBy("src")
        .orderBy("id")
        .execute()) as LogRow[];
    } else {
      // PostgreSQL writes every click into clicks with its batch: no staging table.
      rows = (await clicks.execute()).map((r) => ({ ...r, src: 0 })) as LogRow[];
    }
    let last: LogRow | null = null;
    let fromClicks = 0;
    for (const r of rows) {
      if (Number(r.src) === 0) {
        fromClicks++;
        last = r;
      }
    }
    if (rows.length > 0) yield rows;
    if (fromClicks < pageSize || !last) return;
    cursor = { at: Number(last.at), id: Number(last.id) };
    stagedFrom = cursor.at;
  }
}

/** The export as a CSV stream; the click log is read page by page while the response is written. */
export async function exportCsv(
  storage: { db: Db; dialect: Dialect },
  stats: Pick<StatsService, "daily">,
  link: Pick<LinkRow, "id" | "num">,
  range: Pick<Period, "days" | "startMs" | "endMs">,
  pageSize = CSV_PAGE,
  /** Columns after the daily part's own (conversions): their header and each day's cells. */
  dailyExtra?: { header: string[]; cells: (date: string) => Cell[] },
): Promise<Transform> {
  // The daily part by UTC day (the days the period touches); the clicks exactly those of the period.
  const daily = await stats.daily(link.id, range.days);
  // The text read ahead of a slow client: 16 KiB on every Node version (22 raised the default to 64 KiB).
  const out = stringify({ ...CSV_OPTIONS, readableHighWaterMark: EXPORT_BUFFER_BYTES });
  // Rows go straight into the stringifier; a page is read only once it has drained (back-pressure).
  const drained = () =>
    new Promise<void>((resolve) => {
      if (out.destroyed) return resolve();
      const done = () => {
        out.off("drain", done).off("close", done);
        resolve();
      };
      out.on("drain", done).on("close", done);
    });
  const write = async (record: Cell[]) => {
    if (!out.write(record)) await drained();
  };
  void (async () => {
    await write([...DAILY_HEADER, ...(dailyExtra?.header ?? [])]);
    for (const d of daily.series) await write([d.date, d.clicks, ...(dailyExtra?.cells(d.date) ?? [])]);
    await write([]);
    await write(LOG_HEADER);
    for await (const page of clickLog(storage.db, storage.dialect, link.num, range, pageSize)) {
      for (const c of page) {
        if (out.destroyed) return; // the client went away: no more pages
        if (
          !out.write([
            new Date(Number(c.at)).toISOString(),
            c.country,
            c.device,
            c.os,
            c.browser,
            c.referrer,
            Number(c.is_bot) ? "true" : "false",
            c.destination ?? "default",
          ])
        )
          await drained();
      }
    }
    out.end();
  })().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}
