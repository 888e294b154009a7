// The account's conversion settings (docs/conversions.md, The click id): whether its links track by default, the
// query parameter of the click id and the attribution window. Changing them needs the Business plan.
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import { FieldChecks, invalid } from "../shared/errors.js";
import { requireCapability } from "../accounts/plans.js";
import type { ConversionSettings, UpdateConversionSettingsBody } from "../contract/conversions.js";

const PARAM_RE = /^[A-Za-z0-9_-]{1,40}$/;
const MAX_DAYS = 3650;

export function settingsOf(user: Pick<UserRow, "track_conversions" | "conversion_param" | "attribution_days">): ConversionSettings {
  return { track_conversions: Number(user.track_conversions) === 1, conversion_param: user.conversion_param, attribution_days: Number(user.attribution_days) };
}

/** Checks and stores the fields given; answers the settings as stored. */
export async function updateSettings(db: Db, user: UserRow, input: UpdateConversionSettingsBody): Promise<ConversionSettings> {
  requireCapability(user.plan, "conversions", "Conversion tracking");
  const checks = new FieldChecks();
  const set: Partial<Pick<UserRow, "track_conversions" | "conversion_param" | "attribution_days">> = {};
  if (input.track_conversions !== undefined) set.track_conversions = input.track_conversions ? 1 : 0;
  const param = input.conversion_param;
  if (param !== undefined)
    set.conversion_param = checks.run(() => {
      if (!PARAM_RE.test(param)) throw invalid("conversion_param", "must be 1 to 40 letters, digits, _ or -");
      return param;
    });
  const days = input.attribution_days;
  if (days !== undefined)
    set.attribution_days = checks.run(() => {
      if (days < 1 || days > MAX_DAYS) throw invalid("attribution_days", `must be from 1 to ${MAX_DAYS}`);
      return days;
    });
  checks.throwIfAny();
  if (Object.keys(set).length > 0) await db.updateTable("users").set(set).where("id", "=", user.id).execute();
  return settingsOf({ ...user, ...set });
}
