// The API's link object (docs/api.md, Links): never the password hash.
import { iso } from "../shared/clock.js";
import type { LinkRow } from "../storage/schema.js";
import type { HostBlocklist } from "./host-blocklist.js";
import type { Link } from "../contract/links.js";
import type { Tag } from "../contract/tags.js";

/** On a custom domain: BASE_URL's scheme with the domain's hostname (docs/api.md, Custom domains). */
export function shortUrl(origin: string, domain: string, alias: string): string {
  return domain === "" ? `${origin}/${alias}` : `${origin.slice(0, origin.indexOf(":"))}://${domain}/${alias}`;
}

/** The card link-preview crawlers get, or null when the owner set none of its parts. */
export function previewOf(row: Pick<LinkRow, "preview_title" | "preview_description" | "preview_image">): Link["preview"] {
  if (row.preview_title === null && row.preview_description === null && row.preview_image === null) return null;
  return { title: row.preview_title, description: row.preview_description, image: row.preview_image };
}

/**
 * `tags`: the link's, in name order, and `health`: its worst checked destination (LinkService.present reads both for a
 * page of links in one query each).
 */
export function toLink(
  link: LinkRow & { updated_by_email?: string | null },
  tags: Tag[],
  origin: string,
  blocklist: HostBlocklist,
  health: Link["health"],
): Link {
  return {
    id: link.id,
    short_url: shortUrl(origin, link.domain, link.alias),
    alias: link.alias,
    domain: link.domain === "" ? null : link.domain,
    url: link.url,
    ios_url: link.ios_url,
    android_url: link.android_url,
    expires_at: iso(link.expires_at === null ? null : Number(link.expires_at)),
    max_clicks: link.max_clicks === null ? null : Number(link.max_clicks),
    has_password: link.password_hash !== null,
    click_count: Number(link.click_count),
    imported_clicks: Number(link.imported_clicks ?? 0),
    owner_id: link.owner_id,
    created_at: iso(Number(link.created_at)),
    updated_at: iso(Number(link.updated_at)),
    updated_by: link.updated_by ?? null,
    updated_by_email: link.updated_by_email ?? null,
    disabled:
      link.disabled_at === null ? null : { reason: link.disabled_reason ?? "", status: Number(link.disabled_status ?? 410), at: iso(Number(link.disabled_at)) },
    destination_blocked: blocklist.blocksLink(link),
    health,
    title: link.title,
    note: link.note,
    tags,
    folder_id: link.folder_id ?? null,
    archived: link.archived_at !== null,
    expired_url: link.expired_url,
    preview: previewOf(link),
    last_click_at: iso(link.last_click_at === null ? null : Number(link.last_click_at)),
    starts_at: iso(link.starts_at == null ? null : Number(link.starts_at)),
    redirect_status: link.redirect_status == null ? null : Number(link.redirect_status),
    crawlable: Number(link.crawlable ?? 0) === 1,
    track_conversions: link.track_conversions == null ? null : Number(link.track_conversions) === 1,
    app_ios_store_id: link.app_ios_store_id ?? null,
    app_android_package: link.app_android_package ?? null,
    app_path: link.app_path ?? null,
    open_outside: link.open_outside == null ? null : Number(link.open_outside) === 1,
    rules: link.rules === null ? [] : (JSON.parse(link.rules) as Link["rules"]),
    split: link.split === null ? [] : (JSON.parse(link.split) as Link["split"]),
    split_goal: (link.split_goal ?? null) as Link["split_goal"],
    split_ends_at: iso(link.split_ends_at == null ? null : Number(link.split_ends_at)),
    split_min_visits: link.split_min_visits == null ? null : Number(link.split_min_visits),
    split_decision: link.split_decision == null ? null : (JSON.parse(link.split_decision) as Link["split_decision"]),
  };
}
