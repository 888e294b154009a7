// The API's link object (API.md, Links): never the password hash.
import { iso } from "../shared/clock.js";
import type { LinkRow } from "../storage/schema.js";
import type { HostBlocklist } from "../admin/blocklist.js";

export interface PublicLink {
  id: string;
  short_url: string;
  alias: string;
  domain: string | null;
  url: string;
  ios_url: string | null;
  android_url: string | null;
  expires_at: string | null;
  max_clicks: number | null;
  has_password: boolean;
  click_count: number;
  owner_id: string | null;
  created_at: string;
  updated_at: string;
  /** The account that last edited the link, and its email when known (teams). */
  updated_by: string | null;
  updated_by_email: string | null;
  /** Set by an operator (issue 20): why, the status visitors get (410 or 451), and when. */
  disabled: { reason: string; status: number; at: string } | null;
  /** A destination is on the operator's blocklist: visitors get 410. */
  destination_blocked: boolean;
}

/** On a custom domain: BASE_URL's scheme with the domain's hostname (API.md, Custom domains). */
export function shortUrl(origin: string, domain: string, alias: string): string {
  return domain === "" ? `${origin}/${alias}` : `${origin.slice(0, origin.indexOf(":"))}://${domain}/${alias}`;
}

export function toPublicLink(link: LinkRow & { updated_by_email?: string | null }, origin: string, blocklist: HostBlocklist): PublicLink {
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
    owner_id: link.owner_id,
    created_at: iso(Number(link.created_at)),
    updated_at: iso(Number(link.updated_at)),
    updated_by: link.updated_by ?? null,
    updated_by_email: link.updated_by_email ?? null,
    disabled:
      link.disabled_at === null
        ? null
        : { reason: link.disabled_reason ?? "", status: Number(link.disabled_status ?? 410), at: iso(Number(link.disabled_at)) },
    destination_blocked: blocklist.blocksLink(link),
  };
}
