// The account's default for its links' way out of in-app browsers (docs/deep-links.md): a link's own
// open_outside wins; null there means this. Every plan (like the links' iOS and Android addresses).
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import type { DeepLinkSettings, UpdateDeepLinkSettingsBody } from "../contract/deeplinks.js";

export function deepLinkSettingsOf(user: Pick<UserRow, "open_outside">): DeepLinkSettings {
  return { open_outside: Number(user.open_outside ?? 0) === 1 };
}

/** Stores the fields given; answers the settings as stored. */
export async function updateDeepLinkSettings(db: Db, user: UserRow, input: UpdateDeepLinkSettingsBody): Promise<DeepLinkSettings> {
  if (input.open_outside === undefined) return deepLinkSettingsOf(user);
  const open_outside = input.open_outside ? 1 : 0;
  await db.updateTable("users").set({ open_outside }).where("id", "=", user.id).execute();
  return deepLinkSettingsOf({ open_outside });
}
