// The link form's conversion fields: whether the link sends the click id to its destination (on, off or the
// account's default) and a split's goal and end; their values from a link, their request fields, their checks.
import type { CreateLinkFields, Link, UpdateLinkFields } from "@contract/links";
import type { SplitGoal } from "@contract/targeting";
import { MAX_SPLIT_MIN_VISITS, SPLIT_GOALS } from "@contract/tables";
import { isoToLocalInput, localInputToIso } from "./local-time";
import { formatNumber } from "../../shared/numbers";

export interface ConversionDraft {
  /** "": the account's (or domain's) default; "on" or "off": the link's own choice. */
  track_conversions: "" | "on" | "off";
  /** "": no goal (the split runs until removed). */
  split_goal: "" | SplitGoal;
  /** datetime-local value; "" for none. */
  split_ends_at: string;
  split_min_visits: string;
}

export const CONVERSION_FIELDS = ["track_conversions", "split_goal", "split_ends_at", "split_min_visits"] as const;

export const EMPTY_CONVERSIONS: ConversionDraft = { track_conversions: "", split_goal: "", split_ends_at: "", split_min_visits: "" };

export { SPLIT_GOALS, type SplitGoal };

export function conversionsFromLink(l: Link): ConversionDraft {
  return {
    track_conversions: l.track_conversions === null ? "" : l.track_conversions ? "on" : "off",
    split_goal: l.split_goal ?? "",
    split_ends_at: isoToLocalInput(l.split_ends_at),
    split_min_visits: l.split_min_visits === null ? "" : String(l.split_min_visits),
  };
}

const trackValue = (v: ConversionDraft) => (v.track_conversions === "" ? null : v.track_conversions === "on");
const minVisits = (v: ConversionDraft) => (v.split_min_visits.trim() ? Number(v.split_min_visits.trim()) : null);

/** A new link's conversion fields: tracking when the plan has it, a split's goal and end with the split. */
export function conversionCreateFields(v: ConversionDraft, conversions: boolean, withSplit: boolean): Partial<CreateLinkFields> {
  const b: Partial<CreateLinkFields> = {};
  if (conversions && v.track_conversions !== "") b.track_conversions = trackValue(v);
  if (!withSplit) return b;
  if (v.split_goal) b.split_goal = v.split_goal;
  if (v.split_ends_at) b.split_ends_at = localInputToIso(v.split_ends_at);
  if (minVisits(v) !== null) b.split_min_visits = minVisits(v);
  return b;
}

/** What changed for an edit; without the plan tracking can still go back to the default or off. */
export function conversionPatchFields(v: ConversionDraft, o: Link, conversions: boolean, withSplit: boolean): Partial<UpdateLinkFields> {
  const b: Partial<UpdateLinkFields> = {};
  const track = trackValue(v);
  if (track !== o.track_conversions && (conversions || track !== true)) b.track_conversions = track;
  // Removing the split clears its goal and end on the server.
  if (!withSplit) return b;
  const goal = v.split_goal || null;
  if (goal !== o.split_goal) b.split_goal = goal;
  const ends = localInputToIso(v.split_ends_at);
  if (isoToLocalInput(ends) !== isoToLocalInput(o.split_ends_at)) b.split_ends_at = ends;
  if (minVisits(v) !== o.split_min_visits) b.split_min_visits = minVisits(v);
  return b;
}

/** The split's end fields' problems the browser can see (the server says the same). */
export function conversionProblems(v: ConversionDraft, withSplit: boolean): Record<string, string> {
  const fe: Record<string, string> = {};
  if (!withSplit) return fe;
  if (v.split_ends_at && localInputToIso(v.split_ends_at) === null) fe.split_ends_at = "Enter a date and time";
  const n = v.split_min_visits.trim();
  if (n && (!/^\d+$/.test(n) || Number(n) < 1 || Number(n) > MAX_SPLIT_MIN_VISITS))
    fe.split_min_visits = `A whole number from 1 to ${formatNumber(MAX_SPLIT_MIN_VISITS)}`;
  return fe;
}
