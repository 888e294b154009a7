// Device destinations: iOS and Android visitors go to their own address when the link has one.

export type Platform = "ios" | "android" | null;

const IOS_RE = /\b(?:iPhone|iPad|iPod)\b/;
const ANDROID_RE = /\bAndroid\b/;

export function platformOf(userAgent: string): Platform {
  if (IOS_RE.test(userAgent)) return "ios";
  if (ANDROID_RE.test(userAgent)) return "android";
  return null;
}

/** The link's iOS or Android destination for this user agent (with its click code), or null. */
export function deviceDestination(
  link: { ios_url: string | null; android_url: string | null },
  userAgent: string,
): { url: string; code: "ios" | "android" } | null {
  if (!link.ios_url && !link.android_url) return null;
  const platform = platformOf(userAgent);
  if (platform === "ios" && link.ios_url) return { url: link.ios_url, code: "ios" };
  if (platform === "android" && link.android_url) return { url: link.android_url, code: "android" };
  return null;
}
