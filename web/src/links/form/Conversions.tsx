// The link builder's conversion fields: "Conversion tracking" (the click id sent to the destination: on, off or
// the account's default; Business and up) and, under a split, its goal and end (docs/conversions.md).
import { Field } from "../../shared/ui";
import { SPLIT_GOALS, type SplitGoal } from "./conversion-values";
import type { OptionProps } from "./Options";

const TRACK_CHOICES: [string, string][] = [
  ["", "Account default"],
  ["on", "On"],
  ["off", "Off"],
];

const GOAL_LABELS: Record<SplitGoal, string> = {
  clicks: "Clicks (share of the visits)",
  leads: "Leads per click",
  sales: "Sales per click",
  revenue: "Revenue per click",
};

export function TrackConversions({ values, errors, set, allowed }: OptionProps & { allowed: boolean }) {
  return (
    <Field
      id="link-track-conversions"
      label="Track conversions"
      error={errors.track_conversions}
      hint="On: visitors reach the destination with the click id added (snip_id, or the parameter set on the Conversions page), so your site can report sign-ups and sales to snip. The account default is set on the Conversions page."
    >
      <select
        id="link-track-conversions"
        data-testid="link-track-conversions"
        value={values.track_conversions}
        // Without the plan the link can still go back to the default or off, never on.
        onChange={(e) => set("track_conversions", e.target.value as "" | "on" | "off")}
      >
        {TRACK_CHOICES.map(([v, label]) => (
          <option key={v} value={v} disabled={!allowed && v === "on"}>
            {label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A split's goal and end: at the end snip compares the variants and makes a clear winner the link's destination. */
export function SplitGoalFields({ values, errors, set, allowed, conversions }: OptionProps & { allowed: boolean; conversions: boolean }) {
  return (
    <fieldset className="lf-split-goal" data-testid="split-goal-fields" disabled={!allowed}>
      <legend>Pick a winner</legend>
      <p className="field-hint">
        With a goal and an end, snip compares the variants at the end (95 % confidence) and makes a clear winner the link&apos;s destination.
      </p>
      <div className="lf-split-goal-grid">
        <Field id="link-split-goal" label="Goal" error={errors.split_goal}>
          <select
            id="link-split-goal"
            data-testid="link-split-goal"
            value={values.split_goal}
            onChange={(e) => set("split_goal", e.target.value as "" | SplitGoal)}
          >
            <option value="">No goal</option>
            {SPLIT_GOALS.map((g) => (
              <option key={g} value={g} disabled={g !== "clicks" && !conversions}>
                {GOAL_LABELS[g]}
              </option>
            ))}
          </select>
        </Field>
        <Field id="link-split-ends-at" label="Ends at (optional)" error={errors.split_ends_at} hint="Local time">
          <input
            id="link-split-ends-at"
            data-testid="link-split-ends-at"
            type="datetime-local"
            value={values.split_ends_at}
            onChange={(e) => set("split_ends_at", e.target.value)}
          />
        </Field>
        <Field id="link-split-min-visits" label="Or visits per variant" error={errors.split_min_visits}>
          <input
            id="link-split-min-visits"
            data-testid="link-split-min-visits"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            placeholder="e.g. 1000"
            value={values.split_min_visits}
            onChange={(e) => set("split_min_visits", e.target.value)}
          />
        </Field>
      </div>
    </fieldset>
  );
}
