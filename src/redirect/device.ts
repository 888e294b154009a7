// Device destinations: iOS and Android visitors go to their own address when the link has one.
import type { CachedLink } from "./link-cache.js";

export type Platform = "ios" | "android" | null;

const IOS_RE = /\b(?:iPhone|iPad|iPod)\b/;
const ANDROID_RE = /\bAndroid\b/;

export function platformOf(userAgent: string): Platform {
  if (IOS_RE.test(userAgent)) return "ios";
  if (ANDROID_RE.test(userAgent)) return "android";
  return null;
}

export function destinationFor(link: Pick<CachedLink, "url" | "ios_url" | "android_url">, userAgent: string): string {
  if (!link.ios_url && !link.android_url) return link.url;
  const platform = platformOf(userAgent);
  if (platform === "ios" && link.ios_url) return link.ios_url;
  if (platform === "android" && link.android_url) return link.android_url;
  return link.url;
}
