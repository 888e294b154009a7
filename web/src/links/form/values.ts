// The link form's values: conversion from and to a link, the request bodies, and the checks before sending
// (the server's rules and messages, from src/contract/form-rules.ts).
import type { Domain } from "@contract/domains";
import type { CreateLinkFields, Link, UpdateLinkFields } from "@contract/links";
import {
  MAX_LINK_NOTE,
  MAX_LINK_TITLE,
  MAX_PREVIEW_DESCRIPTION,
  MAX_PREVIEW_TITLE,
  MAX_TAGS_PER_LINK,
  MESSAGES,
  aliasProblem,
  destinationProblem,
  expiryProblem,
  maxClicksProblem,
} from "../../../../src/contract/form-rules";
import { isoToLocalInput, localInputToIso } from "./local-time";
import {
  rulesBody,
  rulesFromLink,
  sameJson,
  splitBody,
  splitFromLink,
  targetingFields,
  targetingProblems,
  type RuleDraft,
  type VariantDraft,
} from "./targeting";
import {
  CONVERSION_FIELDS,
  EMPTY_CONVERSIONS,
  conversionCreateFields,
  conversionPatchFields,
  conversionProblems,
  conversionsFromLink,
  type ConversionDraft,
} from "./conversion-values";
import { APP_FIELDS, EMPTY_APPS, appCreateFields, appPatchFields, appProblems, appsFromLink, type AppDraft } from "./app-values";

export { isoToLocalInput, localInputToIso };

export interface FormValues extends ConversionDraft, AppDraft {
  url: string;
  alias: string;
  /** "" for the service's own host. */
  domain: string;
  expires_at: string; // datetime-local value
  max_clicks: string;
  password: string;
  remove_password: boolean;
  ios_url: string;
  android_url: string;
  title: string;
  note: string;
  /** Tag names as chosen (new ones are created on saving). */
  tags: string[];
  /** A folder of the link's owner, "" for none. */
  folder_id: string;
  expired_url: string;
  preview_title: string;
  preview_description: string;
  preview_image: string;
  rules: RuleDraft[];
  /** Empty: no split. */
  split: VariantDraft[];
  starts_at: string; // datetime-local value
  /** "" for the service's default, else "301", "302", "307" or "308". */
  redirect_status: string;
  crawlable: boolean;
}

/** What the user's plan (or, on a team owner's link, the owner's) lets the form send. */
export interface Allowed {
  /** Expiry and click limit. */
  limits: boolean;
  fallback: boolean;
  preview: boolean;
  /** Redirect rules and the split. */
  targeting: boolean;
  /** Sending the click id to the destination (conversion tracking). */
  conversions: boolean;
}

/** The form's fields, in the order they are shown (server errors on other fields go to the form's alert). */
export const LINK_FIELDS = [
  "url",
  "domain",
  "alias",
  "title",
  "note",
  "tags",
  "folder_id",
  "expires_at",
  "starts_at",
  "max_clicks",
  "expired_url",
  "password",
  "ios_url",
  "android_url",
  "preview.title",
  "preview.description",
  "preview.image",
  "redirect_status",
  "crawlable",
  ...targetingFields(),
  ...CONVERSION_FIELDS,
  ...APP_FIELDS,
];

export const EMPTY: FormValues = {
  url: "",
  alias: "",
  domain: "",
  expires_at: "",
  max_clicks: "",
  password: "",
  remove_password: false,
  ios_url: "",
  android_url: "",
  title: "",
  note: "",
  tags: [],
  folder_id: "",
  expired_url: "",
  preview_title: "",
  preview_description: "",
  preview_image: "",
  rules: [],
  split: [],
  starts_at: "",
  redirect_status: "",
  crawlable: false,
  ...EMPTY_CONVERSIONS,
  ...EMPTY_APPS,
};

export function fromLink(l: Link): FormValues {
  return {
    url: l.url,
    alias: l.alias,
    domain: l.domain ?? "",
    expires_at: isoToLocalInput(l.expires_at),
    max_clicks: l.max_clicks == null ? "" : String(l.max_clicks),
    password: "",
    remove_password: false,
    ios_url: l.ios_url ?? "",
    android_url: l.android_url ?? "",
    title: l.title ?? "",
    note: l.note ?? "",
    tags: l.tags.map((t) => t.name),
    folder_id: l.folder_id ?? "",
    expired_url: l.expired_url ?? "",
    preview_title: l.preview?.title ?? "",
    preview_description: l.preview?.description ?? "",
    preview_image: l.preview?.image ?? "",
    rules: rulesFromLink(l.rules),
    split: splitFromLink(l.split),
    starts_at: isoToLocalInput(l.starts_at),
    redirect_status: l.redirect_status == null ? "" : String(l.redirect_status),
    crawlable: l.crawlable,
    ...conversionsFromLink(l),
    ...appsFromLink(l),
  };
}

/** A new link with every setting of `l` but its alias (and its password, which cannot be read back). */
export function duplicateOf(l: Link): FormValues {
  return { ...fromLink(l), alias: "" };
}

/** The preview card's parts as typed, trimmed, null when empty. */
function previewOf(v: FormValues): { title: string | null; description: string | null; image: string | null } {
  return { title: v.preview_title.trim() || null, description: v.preview_description.trim() || null, image: v.preview_image.trim() || null };
}

const sameNames = (a: string[], b: string[]) => {
  const key = (list: string[]) =>
    list
      .map((n) => n.toLowerCase())
      .sort()
      .join("\n");
  return key(a) === key(b);
};

/** Verified domains, plus the link's own domain when it is no longer verified (so the form shows where it lives). */
export function domainChoices(domains: Domain[] | null, original: Link | null): Pick<Domain, "hostname" | "status">[] {
  const list: Pick<Domain, "hostname" | "status">[] = (domains ?? []).filter((d) => d.status === "verified");
  if (original?.domain && !list.some((d) => d.hostname === original.domain)) list.push({ hostname: original.domain, status: "pending" });
  return list;
}

export function createBody(values: FormValues, allowed: Allowed): CreateLinkFields {
  const b: CreateLinkFields = { url: values.url.trim() };
  if (values.alias.trim()) b.alias = values.alias.trim();
  if (values.domain) b.domain = values.domain;
  if (allowed.limits && values.expires_at) b.expires_at = localInputToIso(values.expires_at);
  if (allowed.limits && values.max_clicks.trim()) b.max_clicks = Number(values.max_clicks);
  if (values.password) b.password = values.password;
  if (values.ios_url.trim()) b.ios_url = values.ios_url.trim();
  if (values.android_url.trim()) b.android_url = values.android_url.trim();
  if (values.title.trim()) b.title = values.title.trim();
  if (values.note.trim()) b.note = values.note.trim();
  if (values.tags.length > 0) b.tags = values.tags;
  if (values.folder_id) b.folder_id = values.folder_id;
  if (allowed.fallback && values.expired_url.trim()) b.expired_url = values.expired_url.trim();
  const preview = previewOf(values);
  if (allowed.preview && (preview.title || preview.description || preview.image)) b.preview = preview;
  if (allowed.targeting && values.rules.length) b.rules = rulesBody(values.rules);
  if (allowed.targeting && values.split.length) b.split = splitBody(values.split);
  if (allowed.limits && values.starts_at) b.starts_at = localInputToIso(values.starts_at);
  if (values.redirect_status) b.redirect_status = Number(values.redirect_status);
  if (values.crawlable) b.crawlable = true;
  return { ...b, ...conversionCreateFields(values, allowed.conversions, allowed.targeting && values.split.length > 0), ...appCreateFields(values) };
}

/** The details of a link that changed (title, note, tags, fallback, preview), for an edit. */
function changedDetails(values: FormValues, o: Link, allowed: Allowed): UpdateLinkFields {
  const b: UpdateLinkFields = {};
  const title = values.title.trim() || null;
  if (title !== o.title) b.title = title;
  const note = values.note.trim() || null;
  if (note !== o.note) b.note = note;
  if (
    !sameNames(
      values.tags,
      o.tags.map((t) => t.name),
    )
  )
    b.tags = values.tags;
  if ((values.folder_id || null) !== o.folder_id) b.folder_id = values.folder_id || null;
  if (allowed.fallback || o.expired_url) {
    const fallback = values.expired_url.trim() || null;
    if (fallback !== o.expired_url) b.expired_url = fallback;
  }
  if (allowed.preview || o.preview) {
    const p = previewOf(values);
    const was = o.preview ?? { title: null, description: null, image: null };
    if (p.title !== was.title || p.description !== was.description || p.image !== was.image) b.preview = p.title || p.description || p.image ? p : null;
  }
  // Without the plan, rules and a split can still be removed (the server accepts clearing them).
  const rules = rulesBody(values.rules);
  if ((allowed.targeting || rules.length === 0) && !sameJson(rules, o.rules)) b.rules = rules;
  const split = splitBody(values.split);
  if ((allowed.targeting || split.length === 0) && !sameJson(split, o.split)) b.split = split;
  if (allowed.limits || o.starts_at) {
    const iso = localInputToIso(values.starts_at);
    if (isoToLocalInput(iso) !== isoToLocalInput(o.starts_at)) b.starts_at = iso;
  }
  const status = values.redirect_status ? Number(values.redirect_status) : null;
  if (status !== o.redirect_status) b.redirect_status = status;
  if (values.crawlable !== o.crawlable) b.crawlable = values.crawlable;
  return { ...b, ...conversionPatchFields(values, o, allowed.conversions, allowed.targeting && split.length > 0), ...appPatchFields(values, o) };
}

export function patchBody(values: FormValues, o: Link, allowed: Allowed): UpdateLinkFields {
  const b: UpdateLinkFields = {};
  if (values.url.trim() !== o.url) b.url = values.url.trim();
  if (values.alias.trim() && values.alias.trim() !== o.alias) b.alias = values.alias.trim();
  if (values.domain !== (o.domain ?? "")) b.domain = values.domain || null;
  if (allowed.limits || o.expires_at) {
    const iso = localInputToIso(values.expires_at);
    if (isoToLocalInput(iso) !== isoToLocalInput(o.expires_at)) b.expires_at = iso;
  }
  if (allowed.limits || o.max_clicks != null) {
    const mc = values.max_clicks.trim() === "" ? null : Number(values.max_clicks);
    if (mc !== o.max_clicks) b.max_clicks = mc;
  }
  if (values.remove_password) b.password = null;
  else if (values.password) b.password = values.password;
  const ios = values.ios_url.trim() || null;
  if (ios !== o.ios_url) b.ios_url = ios;
  const android = values.android_url.trim() || null;
  if (android !== o.android_url) b.android_url = android;
  return { ...b, ...changedDetails(values, o, allowed) };
}

/**
 * Every field's problem the browser can see before sending, in the server's words. `original` is the
 * link being edited: its unchanged expiry may lie in the past.
 */
export function checkValues(values: FormValues, original: Link | null, now = Date.now()): Record<string, string> {
  const fe: Record<string, string> = {};
  const url = destinationProblem(values.url);
  if (url) fe.url = url;
  const alias = values.alias.trim();
  if (alias) {
    const p = aliasProblem(alias);
    if (p) fe.alias = p;
  } else if (original) fe.alias = MESSAGES.aliasRemoved;
  for (const key of ["ios_url", "android_url"] as const) {
    const p = values[key].trim() ? destinationProblem(values[key]) : null;
    if (p) fe[key] = p;
  }
  if (values.expires_at && values.expires_at !== isoToLocalInput(original?.expires_at ?? null)) {
    const iso = localInputToIso(values.expires_at);
    const p = iso === null ? MESSAGES.expiryFormat : expiryProblem(Date.parse(iso), now);
    if (p) fe.expires_at = p;
  }
  if (values.starts_at && localInputToIso(values.starts_at) === null) fe.starts_at = MESSAGES.expiryFormat;
  else if (values.starts_at && values.expires_at && values.starts_at >= values.expires_at) fe.starts_at = MESSAGES.startsBeforeExpiry;
  const clicks = values.max_clicks.trim();
  if (clicks) {
    const p = /^\d+$/.test(clicks) ? maxClicksProblem(Number(clicks)) : MESSAGES.maxClicks;
    if (p) fe.max_clicks = p;
  }
  return {
    ...fe,
    ...detailProblems(values),
    ...targetingProblems(values.rules, values.split),
    ...conversionProblems(values, values.split.length > 0),
    ...appProblems(values),
  };
}

const longer = (s: string, max: number) => [...s.trim()].length > max;

/** The details' problems the browser can see (the server says the same). */
function detailProblems(values: FormValues): Record<string, string> {
  const fe: Record<string, string> = {};
  if (longer(values.title, MAX_LINK_TITLE)) fe.title = MESSAGES.titleLong;
  if (longer(values.note, MAX_LINK_NOTE)) fe.note = MESSAGES.noteLong;
  if (values.tags.length > MAX_TAGS_PER_LINK) fe.tags = MESSAGES.tooManyTags;
  const fallback = values.expired_url.trim() ? destinationProblem(values.expired_url) : null;
  if (fallback) fe.expired_url = fallback;
  if (longer(values.preview_title, MAX_PREVIEW_TITLE)) fe["preview.title"] = MESSAGES.previewTitleLong;
  if (longer(values.preview_description, MAX_PREVIEW_DESCRIPTION)) fe["preview.description"] = MESSAGES.previewDescriptionLong;
  const image = values.preview_image.trim();
  if (image && !/^https:\/\/[^/?#\s]/i.test(image)) fe["preview.image"] = MESSAGES.previewImageHttps;
  return fe;
}
