// The link builder's options: each a row (a disclosure) that opens its fields in place. An option that has a value
// is marked (and opens by itself on an edited or copied link); a field the server or the checks refuse opens
// the option that holds it.
import { useEffect, useState, type ReactNode } from "react";
import type { FormValues } from "./values";
import { appsHaveValue } from "./app-values";

export const OPTION_KEYS = ["utm", "limits", "delivery", "password", "devices", "rules", "split", "conversions", "preview", "details"] as const;
export type OptionKey = (typeof OPTION_KEYS)[number];

/** Each option's title, as its row shows it. */
export const OPTION_TITLES: Record<OptionKey, string> = {
  utm: "UTM parameters",
  limits: "Expiry and click limit",
  delivery: "Start date and redirect code",
  password: "Password",
  devices: "Device and app destinations",
  rules: "Redirect rules",
  split: "Split (A/B test)",
  conversions: "Conversion tracking",
  preview: "Social preview",
  details: "Title, note, tags and folder",
};

const UTM_KEY = /[?&]utm_(source|medium|campaign|term|content)=/i;

/** Whether the option holds a value (`passwordSet`: the edited link has a password). */
export function optionHasValue(key: OptionKey, v: FormValues, passwordSet = false): boolean {
  switch (key) {
    case "utm":
      return UTM_KEY.test(v.url);
    case "limits":
      return !!(v.expires_at || v.max_clicks.trim() || v.expired_url.trim());
    case "delivery":
      return !!(v.starts_at || v.redirect_status || v.crawlable);
    case "password":
      return passwordSet || !!v.password || v.remove_password;
    case "devices":
      return !!(v.ios_url.trim() || v.android_url.trim()) || appsHaveValue(v);
    case "rules":
      return v.rules.length > 0;
    case "split":
      return v.split.length > 0;
    case "conversions":
      return v.track_conversions !== "";
    case "preview":
      return !!(v.preview_title.trim() || v.preview_description.trim() || v.preview_image.trim());
    case "details":
      return !!(v.title.trim() || v.note.trim() || v.tags.length || v.folder_id);
  }
}

/** The option that holds a field of the form's errors (LINK_FIELDS' names), or null for the fields above them. */
export function optionOfField(field: string): OptionKey | null {
  if (/^rules\b/.test(field)) return "rules";
  if (field === "track_conversions") return "conversions";
  if (/^split\b/.test(field)) return "split";
  if (field.startsWith("preview.")) return "preview";
  const map: Record<string, OptionKey> = {
    expires_at: "limits",
    max_clicks: "limits",
    expired_url: "limits",
    starts_at: "delivery",
    redirect_status: "delivery",
    crawlable: "delivery",
    password: "password",
    ios_url: "devices",
    android_url: "devices",
    app_ios_store_id: "devices",
    app_android_package: "devices",
    app_path: "devices",
    open_outside: "devices",
    title: "details",
    note: "details",
    tags: "details",
    folder_id: "details",
  };
  return map[field] ?? null;
}

/**
 * Which options are open: none at first; those with a value once the link's values have loaded (`loadedKey`
 * changes when a link is loaded) and `openToo`, and those holding a refused field.
 */
export function useOpenOptions(values: FormValues, loadedKey: string, passwordSet: boolean, openToo: OptionKey[] = []) {
  const [open, setOpen] = useState<ReadonlySet<OptionKey>>(new Set());
  useEffect(() => {
    setOpen(new Set(OPTION_KEYS.filter((k) => openToo.includes(k) || optionHasValue(k, values, passwordSet))));
    // Read when another link's values arrive, not on every keystroke.
  }, [loadedKey]);
  const toggle = (key: OptionKey) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const reveal = (fields: string[]) => {
    const keys = fields.map(optionOfField).filter((k): k is OptionKey => k !== null);
    if (keys.length) setOpen((prev) => new Set([...prev, ...keys]));
  };
  return { open, toggle, reveal };
}

/** One option: a disclosure with its title and a mark when set; its fields below while open (kept, hidden, while closed). */
export function OptionRow(props: {
  optionKey: OptionKey;
  open: boolean;
  set: boolean;
  onToggle: () => void;
  /** The plan the option needs, when the user's lacks it (a locked option shows only to remove its value). */
  lockedPlan?: string | null;
  toggleTestId?: string;
  children: ReactNode;
}) {
  const { optionKey: key, open } = props;
  const bodyId = `lf-option-${key}`;
  return (
    <section className={`lf-option${open ? " lf-option-open" : ""}`} data-testid={`option-${key}`} data-set={props.set ? "true" : undefined}>
      <button
        type="button"
        className="lf-option-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        data-testid={props.toggleTestId ?? `option-${key}-toggle`}
        onClick={props.onToggle}
      >
        <span className="lf-option-title">{OPTION_TITLES[key]}</span>
        {props.set ? (
          <span className="lf-option-set" data-testid={`option-${key}-set`}>
            Set
          </span>
        ) : null}
        {props.lockedPlan ? <span className="badge badge-plan">{props.lockedPlan}</span> : null}
        <svg className="lf-chevron" width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
          <path d="m6 9 6 6 6-6" />
        </svg>
      </button>
      <div className="lf-option-body" id={bodyId} hidden={!open}>
        {props.children}
      </div>
    </section>
  );
}
