// A link's destinations as health checks them (docs/health.md): its url, the device destinations, each rule's
// and each split variant's address, and the fallback after expiry, each under the code clicks use for it.
import type { Db } from "../storage/db.js";
import { newId } from "../shared/ids.js";

export interface LinkDestinations {
  url: string;
  ios_url: string | null;
  android_url: string | null;
  rules: string | null;
  split: string | null;
  expired_url: string | null;
}

export interface Destination {
  destination: string;
  url: string;
}

function urlsOf(json: string | null): string[] {
  if (!json) return [];
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? list.map((e) => (e as { url?: unknown }).url).filter((u): u is string => typeof u === "string") : [];
  } catch {
    return [];
  }
}

export function destinationsOf(link: LinkDestinations): Destination[] {
  const out: Destination[] = [{ destination: "default", url: link.url }];
  if (link.ios_url) out.push({ destination: "ios", url: link.ios_url });
  if (link.android_url) out.push({ destination: "android", url: link.android_url });
  urlsOf(link.rules).forEach((url, i) => out.push({ destination: `rule:${i + 1}`, url }));
  urlsOf(link.split).forEach((url, i) => out.push({ destination: `variant:${i + 1}`, url }));
  if (link.expired_url) out.push({ destination: "fallback", url: link.expired_url });
  return out;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/**
 * Makes the link's rows match its destinations: a new destination, or one whose address changed, starts over
 * (unknown, its history dropped) and is due at `now`; one the link no longer has is removed. Answers whether
 * anything became due.
 */
export async function syncDestinations(db: Db, linkId: string, link: LinkDestinations, now: number): Promise<boolean> {
  const wanted = destinationsOf(link);
  const rows = await db.selectFrom("link_health").select(["id", "destination", "url"]).where("link_id", "=", linkId).execute();
  const held = new Map(rows.map((r) => [r.destination, r]));
  let due = false;
  for (const d of wanted) {
    const row = held.get(d.destination);
    held.delete(d.destination);
    if (row?.url === d.url) continue;
    due = true;
    if (row) {
      await db.deleteFrom("link_health_results").where("health_id", "=", row.id).execute();
      await db
        .updateTable("link_health")
        .set({
          url: d.url,
          host: hostOf(d.url),
          state: "unknown",
          consecutive_failures: 0,
          rate_limited: 0,
          last_result: null,
          last_status: null,
          last_error: null,
          final_url: null,
          redirect_loop: 0,
          tls_valid_to: null,
          response_ms: null,
          last_checked_at: null,
          next_check_at: now,
          broken_since: null,
        })
        .where("id", "=", row.id)
        .execute();
    } else {
      await db
        .insertInto("link_health")
        .values({ id: newId(), link_id: linkId, destination: d.destination, url: d.url, host: hostOf(d.url), next_check_at: now })
        .onConflict((oc) => oc.columns(["link_id", "destination"]).doNothing())
        .execute();
    }
  }
  const gone = [...held.values()].map((r) => r.id);
  if (gone.length > 0) await db.deleteFrom("link_health").where("id", "in", gone).execute();
  return due;
}
