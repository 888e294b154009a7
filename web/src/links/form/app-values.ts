// The link form's app destinations (docs/deep-links.md): the App Store id, the Android package, the in-app path and
// the way out of in-app browsers (on, off or the account's default); their values from a link, their request
// fields and their checks (the server's rules, so a wrong value is named before sending).
import type { CreateLinkFields, Link, UpdateLinkFields } from "@contract/links";

export interface AppDraft {
  app_ios_store_id: string;
  app_android_package: string;
  app_path: string;
  /** "": the account's default; "on" or "off": the link's own choice. */
  open_outside: "" | "on" | "off";
}

export const APP_FIELDS = ["app_ios_store_id", "app_android_package", "app_path", "open_outside"] as const;

export const EMPTY_APPS: AppDraft = { app_ios_store_id: "", app_android_package: "", app_path: "", open_outside: "" };

export function appsFromLink(l: Link): AppDraft {
  return {
    app_ios_store_id: l.app_ios_store_id ?? "",
    app_android_package: l.app_android_package ?? "",
    app_path: l.app_path ?? "",
    open_outside: l.open_outside === null ? "" : l.open_outside ? "on" : "off",
  };
}

export const appsHaveValue = (v: AppDraft) => !!(v.app_ios_store_id.trim() || v.app_android_package.trim() || v.app_path.trim() || v.open_outside);

const text = (s: string) => s.trim() || null;
const outside = (v: AppDraft) => (v.open_outside === "" ? null : v.open_outside === "on");

export function appCreateFields(v: AppDraft): Partial<CreateLinkFields> {
  const b: Partial<CreateLinkFields> = {};
  for (const key of ["app_ios_store_id", "app_android_package", "app_path"] as const) if (text(v[key])) b[key] = text(v[key]);
  if (v.open_outside !== "") b.open_outside = outside(v);
  return b;
}

export function appPatchFields(v: AppDraft, o: Link): Partial<UpdateLinkFields> {
  const b: Partial<UpdateLinkFields> = {};
  for (const key of ["app_ios_store_id", "app_android_package", "app_path"] as const) if (text(v[key]) !== o[key]) b[key] = text(v[key]);
  if (outside(v) !== o.open_outside) b.open_outside = outside(v);
  return b;
}

export function appProblems(v: AppDraft): Record<string, string> {
  const fe: Record<string, string> = {};
  const id = v.app_ios_store_id.trim().replace(/^id/i, "");
  if (id && !/^[1-9][0-9]{0,14}$/.test(id)) fe.app_ios_store_id = "Enter the App Store id: the digits after id in apps.apple.com/app/id…";
  const pkg = v.app_android_package.trim();
  if (pkg && (pkg.length > 255 || !/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/.test(pkg)))
    fe.app_android_package = "Enter an Android application id such as com.example.shop";
  const path = v.app_path.trim();
  if (path && (path.length > 1024 || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*$/.test(path))) fe.app_path = "Enter a path starting with / (no spaces)";
  return fe;
}
