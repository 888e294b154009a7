// A threat feed's CSV read into its keys (threat-feed-worker.ts runs it on a worker thread): URLhaus's and
// PhishTank's documented formats, parsed as a stream with csv-parse so a million rows never sit in memory as
// text, each address keyed as the blocklist matches it (feedKey) and the keys packed into FeedTables.
import type { Readable } from "node:stream";
import { parse } from "csv-parse";
import { feedKey } from "../links/host-blocklist.js";
import { FeedTable } from "../links/feed-table.js";

export type FeedFormat = "urlhaus" | "phishtank";

export interface ParsedFeed {
  hosts: FeedTable;
  urls: FeedTable;
  /** Data rows read (comments and the header aside). */
  rows: number;
  /** Rows with no usable http(s) address, or that CSV could not read. */
  skipped: number;
}

/**
 * Parses a feed's CSV. URLhaus: `#` comment lines, then rows whose third column is the address (`id,
 * dateadded,url,url_status,...`). PhishTank: a header row naming the columns, the address under `url`.
 */
export async function parseFeedCsv(format: FeedFormat, input: Readable): Promise<ParsedFeed> {
  const parser = parse({
    comment: "#",
    comment_no_infix: true,
    columns: format === "phishtank",
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    trim: true,
  });
  const hosts = new Set<string>();
  const urls = new Set<string>();
  let rows = 0;
  let skipped = 0;
  parser.on("skip", () => {
    rows++;
    skipped++;
  });
  input.on("error", (err) => parser.destroy(err));
  input.pipe(parser);
  for await (const record of parser as AsyncIterable<string[] | Record<string, string>>) {
    rows++;
    const raw = Array.isArray(record) ? record[2] : record.url;
    const key = typeof raw === "string" ? feedKey(raw) : null;
    if (key === null) skipped++;
    else if (key.url === null) hosts.add(key.host);
    else urls.add(key.url);
  }
  return { hosts: FeedTable.build(hosts), urls: FeedTable.build(urls), rows, skipped };
}
