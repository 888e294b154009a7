// How a link answers besides where it goes (docs/api.md, Links): a start date before which it does not
// open (Pro and up), the redirect status, and whether search engines may follow it. Checked for
// creation, edits, bulk rows, imports and the external API alike (link-details.ts).
import { invalid, type FieldChecks } from "../shared/errors.js";
import type { LinkUpdate } from "../storage/schema.js";
import { requireCapability } from "../accounts/plans.js";
import { MESSAGES } from "../contract/form-rules.js";

export const REDIRECT_STATUSES = [301, 302, 307, 308] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

export interface LinkDeliveryInput {
  starts_at?: string | null;
  redirect_status?: number | null;
  crawlable?: boolean;
  track_conversions?: boolean | null;
}

const MAX_TIME = Date.UTC(9999, 11, 31);

export function isRedirectStatus(n: unknown): n is RedirectStatus {
  return (REDIRECT_STATUSES as readonly unknown[]).includes(n);
}

/** An ISO 8601 date-time (a date in the past is allowed: the link then opens at once, as imports bring it). */
export function parseStart(value: string): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(t)) throw invalid("starts_at", MESSAGES.expiryFormat);
  if (t > MAX_TIME || t < 0) throw invalid("starts_at", MESSAGES.expiryTooFar);
  return t;
}

/** The columns these fields set (absent: unchanged); `plan` is the link owner's. */
export function checkDelivery(
  checks: FieldChecks,
  input: LinkDeliveryInput,
  plan: string,
): Pick<LinkUpdate, "starts_at" | "redirect_status" | "crawlable" | "track_conversions"> {
  const set: Pick<LinkUpdate, "starts_at" | "redirect_status" | "crawlable" | "track_conversions"> = {};
  const start = input.starts_at;
  if (start !== undefined) {
    set.starts_at =
      start === null || start === ""
        ? null
        : checks.run(() => {
            requireCapability(plan, "link_start", "A start date");
            return parseStart(start);
          });
  }
  const status = input.redirect_status;
  if (status !== undefined) {
    set.redirect_status =
      status === null
        ? null
        : checks.run(() => {
            if (!isRedirectStatus(status)) throw invalid("redirect_status", MESSAGES.redirectStatus);
            return status;
          });
  }
  if (input.crawlable !== undefined) set.crawlable = input.crawlable ? 1 : 0;
  const track = input.track_conversions;
  if (track !== undefined) {
    set.track_conversions =
      track === null
        ? null
        : !track
          ? 0
          : checks.run(() => {
              requireCapability(plan, "conversions", "Conversion tracking");
              return 1;
            });
  }
  return set;
}

/** A start date must come before the expiry (both as they will be stored). */
export function checkStartBeforeExpiry(startsAt: number | null | undefined, expiresAt: number | null | undefined): void {
  if (startsAt != null && expiresAt != null && startsAt >= expiresAt) throw invalid("starts_at", MESSAGES.startsBeforeExpiry);
}
