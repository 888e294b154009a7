// What describes a link besides its addresses (docs/api.md, Links): title, note, tags, archive mark,
// fallback URL and preview card. Checked here for creation, edits, bulk rows and the external API alike;
// the fallback and the preview follow the owner's plan.
import { invalid, type FieldChecks } from "../shared/errors.js";
import type { LinkUpdate } from "../storage/schema.js";
import { requireCapability } from "../accounts/plans.js";
import type { Trx } from "../storage/owner-caps.js";
import { ensureTags, tagName } from "../tags/tags.js";
import { MAX_LINK_NOTE, MAX_LINK_TITLE, MAX_PREVIEW_DESCRIPTION, MAX_PREVIEW_TITLE, MAX_TAGS_PER_LINK, MESSAGES } from "../contract/form-rules.js";
import { normalizeDestination } from "./validate.js";
import { type CheckedTargeting, type TargetingInput, checkTargeting } from "./link-targeting.js";
import { type LinkDeliveryInput, checkDelivery } from "./link-delivery.js";
import { type LinkAppsInput, checkLinkApps } from "../deeplinks/link-apps.js";

export interface LinkDetailsInput extends TargetingInput, LinkDeliveryInput, LinkAppsInput {
  title?: string | null;
  note?: string | null;
  tags?: string[];
  /** Checked apart (the owner's folders are read): create-link.ts and update-link.ts. */
  folder_id?: string | null;
  expired_url?: string | null;
  preview?: { title?: string | null; description?: string | null; image?: string | null } | null;
  archived?: boolean;
}

/** The columns a create or edit sets (absent: unchanged), and the tag names when the link's tags change. */
export interface CheckedDetails {
  set: Pick<
    LinkUpdate,
    | "title"
    | "note"
    | "expired_url"
    | "preview_title"
    | "preview_description"
    | "preview_image"
    | "archived_at"
    | "rules"
    | "split"
    | "split_goal"
    | "split_ends_at"
    | "split_min_visits"
    | "split_started_at"
    | "split_decision"
    | "starts_at"
    | "redirect_status"
    | "crawlable"
    | "track_conversions"
    | "app_ios_store_id"
    | "app_android_package"
    | "app_path"
    | "open_outside"
    | "folder_id"
  >;
  tags: string[] | undefined;
  /** Rules' and variants' addresses with their fields (the blocklist checks them like the link's own). */
  targetUrls: CheckedTargeting["urls"];
}

/** Trimmed text, null when empty; refused when longer than `max` characters or holding control characters (a note keeps its line breaks). */
function text(raw: string | null, field: string, max: number, tooLong: string, lines = false): string | null {
  if (raw === null) return null;
  const value = raw.trim();
  if (value === "") return null;
  if ([...value].length > max) throw invalid(field, tooLong);
  const control = lines ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/ : /[\u0000-\u001f\u007f]/;
  if (control.test(value)) throw invalid(field, MESSAGES.textControl);
  return value;
}

/** Tag names as given, each checked, duplicates (ignoring case) dropped; at most MAX_TAGS_PER_LINK. */
export function checkTagNames(names: string[], field = "tags"): string[] {
  const out = new Map<string, string>();
  for (const raw of names) {
    let name: string;
    try {
      name = tagName(raw);
    } catch (err) {
      const message = (err as { details?: { message: string }[] }).details?.[0]?.message ?? "Not a valid tag name";
      throw invalid(field, message);
    }
    if (!out.has(name.toLowerCase())) out.set(name.toLowerCase(), name);
  }
  if (out.size > MAX_TAGS_PER_LINK) throw invalid(field, MESSAGES.tooManyTags);
  return [...out.values()];
}

function previewImage(raw: string | null | undefined, ownHost: string): string | null {
  if (raw == null || raw.trim() === "") return null;
  if (!/^https:\/\//i.test(raw.trim())) throw invalid("preview.image", MESSAGES.previewImageHttps);
  return normalizeDestination(raw, "preview.image", ownHost);
}

/** Checks the details present in `input` (every wrong field noted in `checks`); `plan` is the link owner's. */
export function checkDetails(checks: FieldChecks, input: LinkDetailsInput, plan: string, ownHost: string, now: number): CheckedDetails {
  const set: CheckedDetails["set"] = {};
  if (input.title !== undefined) set.title = checks.run(() => text(input.title ?? null, "title", MAX_LINK_TITLE, MESSAGES.titleLong));
  if (input.note !== undefined) set.note = checks.run(() => text(input.note ?? null, "note", MAX_LINK_NOTE, MESSAGES.noteLong, true));
  if (input.expired_url !== undefined) {
    const raw = input.expired_url;
    set.expired_url =
      raw === null || raw.trim() === ""
        ? null
        : checks.run(() => {
            requireCapability(plan, "link_fallback", "A fallback URL");
            return normalizeDestination(raw, "expired_url", ownHost);
          });
  }
  if (input.preview !== undefined) {
    const p = input.preview;
    if (p === null) Object.assign(set, { preview_title: null, preview_description: null, preview_image: null });
    else {
      const given = [p.title, p.description, p.image].some((v) => v != null && v.trim() !== "");
      if (given) checks.run(() => requireCapability(plan, "link_preview", "A social preview"));
      set.preview_title = checks.run(() => text(p.title ?? null, "preview.title", MAX_PREVIEW_TITLE, MESSAGES.previewTitleLong));
      set.preview_description = checks.run(() => text(p.description ?? null, "preview.description", MAX_PREVIEW_DESCRIPTION, MESSAGES.previewDescriptionLong));
      set.preview_image = checks.run(() => previewImage(p.image, ownHost));
    }
  }
  if (input.archived !== undefined) set.archived_at = input.archived ? now : null;
  const tags = input.tags === undefined ? undefined : checks.run(() => checkTagNames(input.tags as string[]));
  const targeting = checkTargeting(checks, input, plan, ownHost, now);
  const delivery = checkDelivery(checks, input, plan);
  const apps = checkLinkApps(checks, input);
  return { set: { ...set, ...targeting.set, ...delivery, ...apps }, tags, targetUrls: targeting.urls };
}

/** Gives the link exactly these tags (creating the owner's unknown ones), inside a transaction holding the owner's lock. */
export async function setLinkTags(trx: Trx, ownerId: string, linkId: string, names: string[], now: number): Promise<void> {
  const ids = await ensureTags(trx, ownerId, names, now);
  await trx.deleteFrom("link_tags").where("link_id", "=", linkId).execute();
  if (ids.length > 0)
    await trx
      .insertInto("link_tags")
      .values(ids.map((tag_id) => ({ link_id: linkId, tag_id })))
      .execute();
}
