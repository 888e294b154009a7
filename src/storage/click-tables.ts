// Row types of the click tables (raw clicks, roll-ups, their state, visitors), part of schema.ts's Database.
import type { Generated } from "kysely";

export interface ClicksTable {
  id: Generated<number>;
  /** links.num of the link. */
  link_num: number;
  at: number;
  country: string;
  device: string;
  os: string;
  browser: string;
  referrer: string;
  is_bot: number;
  /** 1 when the click was added to links.click_count as it was served (click-limited links). */
  counted: Generated<number>;
  /** Where the visit went: rule:N, ios, android, variant:N (contract/targeting.ts); null for the link's url, "default" (migration 021). */
  destination: string | null;
  /** 1 on the first click of its visitor that UTC day on the link (migration 022). */
  new_visitor: Generated<number>;
  /** 1 when the visit came from a QR code. */
  qr: Generated<number>;
  /** "FR-IDF|Île-de-France": ISO 3166-2 code and English name, from a GeoIP City database; null when unknown (migration 023). */
  region: string | null;
  /** "FR-IDF|Paris" (or "SG|Singapore" without a region): the region's code or the country's, and the English name; null when unknown. */
  city: string | null;
  /** The referrer's URL without query or fragment (scheme, host, path; at most 300 characters); null without a referrer. */
  referrer_url: string | null;
  /** The short URL's UTM values as the normalised query "utm_source=x&utm_medium=y" (clicks/utm-values.ts); null without any. */
  utm: string | null;
}

export interface ClickDailyTable {
  link_id: string;
  day: string;
  clicks: number;
  bots: number;
  visitors: Generated<number>;
  qr: Generated<number>;
}

/** Clicks per link and UTC hour (`hour`: epoch ms of its start). */
export interface ClickHourlyTable {
  link_id: string;
  hour: number;
  clicks: number;
  bots: number;
  visitors: number;
  qr: number;
}

/** Visitor keys of today and yesterday (UTC): a key is in once its first click is written. */
export interface ClickVisitorsTable {
  day: string;
  visitor: number;
}

/** The salt of each UTC day that visitor keys are made with; deleted with the day after. */
export interface VisitorSaltsTable {
  day: string;
  salt: string;
}

export interface ClickBreakdownTable {
  link_id: string;
  day: string;
  dimension: string;
  value: string;
  clicks: number;
  visitors: Generated<number>;
}

/** Sum of click_breakdown per calendar month ("YYYY-MM", UTC). */
export interface ClickBreakdownMonthTable {
  link_id: string;
  month: string;
  dimension: string;
  value: string;
  clicks: number;
  visitors: Generated<number>;
}

export interface ClickRollupStateTable {
  id: number;
  /** Every raw click up to this id is in the roll-ups (and in links.click_count). */
  last_click_id: number;
  /** A roll-up written in several transactions: clicks up to epoch_to of links up to epoch_link are in. */
  epoch_to: number | null;
  epoch_link: string | null;
  /** The last month ("YYYY-MM") whose click_breakdown_month rows are complete; later months are read from the daily rows. */
  months_through: string | null;
  /** A compaction in progress: months after months_through up to compact_to, of links up to compact_link, are done. */
  compact_to: string | null;
  compact_link: string | null;
}

/** The last click-journal segment a click writer committed, per journal (one per running instance). */
export interface ClickJournalTable {
  journal: string;
  segment: number;
  /** SQLite: the segment is committed for its links up to this number only (its batch's next chunk was not); null: whole. */
  through_num: number | null;
}

/** The sum of an owner's links' click_daily rows (migration 022): account analytics reads it. */
export interface OwnerDailyTable {
  owner_id: string;
  day: string;
  clicks: number;
  bots: number;
  visitors: number;
  qr: number;
}

/** The sum of an owner's links' click_hourly rows. */
export interface OwnerHourlyTable {
  owner_id: string;
  hour: number;
  clicks: number;
  bots: number;
  visitors: number;
  qr: number;
}

/** The sum of an owner's links' click_breakdown rows. */
export interface OwnerBreakdownTable {
  owner_id: string;
  day: string;
  dimension: string;
  value: string;
  clicks: number;
  visitors: number;
}

/** The sum of an owner's links' click_breakdown_month rows (migration 062): complete through click_rollup_state.months_through. */
export interface OwnerBreakdownMonthTable {
  owner_id: string;
  month: string;
  dimension: string;
  value: string;
  clicks: number;
  visitors: number;
}
