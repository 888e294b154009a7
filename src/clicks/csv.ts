// CSV export of a link's statistics: the daily series, then the per-click log, streamed (csv-stringify
// does the RFC 4180 quoting; cells that a spreadsheet would run as a formula are neutralised).
import { Readable, type Transform, pipeline } from "node:stream";
import { stringify, type Options } from "csv-stringify";
import type { Db } from "../storage/db.js";
import type { LinkRow } from "../storage/schema.js";
import type { DayRange } from "./range.js";
import type { StatsService } from "./stats.js";

/** Most clicks listed in one export; beyond it the log holds the most recent ones. */
export const CSV_LOG_CAP = 100_000;
const PAGE = 5_000;

export const CSV_OPTIONS: Options = {
  bom: true, // spreadsheets read the file as UTF-8
  record_delimiter: "windows", // CRLF (RFC 4180)
  quote_record_delimiter: true, // also quote a lone CR or LF inside a field
  escape_formulas: true, // leading = + - @ tab CR get a "'" prefix (OWASP CSV injection)
};

export const DAILY_HEADER = ["date", "clicks"];
export const LOG_HEADER = ["time", "country", "device", "os", "browser", "referrer", "bot"];

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

export interface CsvExport {
  /** True when older clicks of the range were left out of the log (CSV_LOG_CAP). */
  truncated: boolean;
  stream: Transform;
}

/** Prepares the export; the rows are read page by page while the response is written. */
export async function exportCsv(db: Db, stats: StatsService, link: LinkRow, range: DayRange, cap = CSV_LOG_CAP): Promise<CsvExport> {
  const daily = await stats.daily(link.id, range);
  const inRange = db
    .selectFrom("clicks")
    .where("link_num", "=", link.num)
    .where("at", ">=", range.startMs)
    .where("at", "<", range.endMs);
  // When the range holds more than `cap` clicks, start after the (cap+1)-th most recent one.
  const beyond = await inRange.select(["at", "id"]).orderBy("at", "desc").orderBy("id", "desc").limit(1).offset(cap).executeTakeFirst();
  let after: { at: number; id: number } | null = beyond ? { at: Number(beyond.at), id: Number(beyond.id) } : null;

  async function* records(): AsyncGenerator<Cell[]> {
    yield DAILY_HEADER;
    for (const d of daily.series) yield [d.date, d.clicks];
    yield [];
    yield LOG_HEADER;
    for (;;) {
      const cursor = after;
      const page = await inRange
        .select(["id", "at", "country", "device", "os", "browser", "referrer", "is_bot"])
        .$if(cursor !== null, (q) => q.where((eb) => eb(eb.refTuple("at", "id"), ">", eb.tuple(cursor!.at, cursor!.id))))
        .orderBy("at", "asc")
        .orderBy("id", "asc")
        .limit(PAGE)
        .execute();
      for (const c of page) {
        yield [new Date(Number(c.at)).toISOString(), c.country, c.device, c.os, c.browser, c.referrer, Number(c.is_bot) ? "true" : "false"];
      }
      if (page.length < PAGE) return;
      const last = page[page.length - 1]!;
      after = { at: Number(last.at), id: Number(last.id) };
    }
  }
  return { truncated: beyond !== undefined, stream: toCsv(records()) };
}
