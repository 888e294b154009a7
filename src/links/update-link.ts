// Editing and deleting a link (owner or active team member edits, the owner alone deletes): same checks
// as creation, null clears an option, plan-gated options follow the owner's plan whoever edits.
import { DomainError, invalid } from "../shared/errors.js";
import type { LinkUpdate, UserRow } from "../storage/schema.js";
import { hashPassword } from "../accounts/passwords.js";
import { requireCapability } from "../accounts/plans.js";
import { aliasTaken, isUniqueViolation } from "./aliases.js";
import { AliasReserved, claimAlias } from "./alias-reservations.js";
import { type CreateLinkInput, requireActive } from "./create-link.js";
import { announce, type LinkDeps } from "./deps.js";
import { type AccessibleLink, type LinkView, accessibleLink, loadLinkView } from "./link-access.js";
import { checkAlias, checkLinkPassword, checkMaxClicks, normalizeDestination, parseExpiry, refuseBlocked } from "./validate.js";

/** Only the fields present change; `null` clears an option. */
export type UpdateLinkInput = Omit<CreateLinkInput, "url" | "alias"> & { url?: string; alias?: string };

/** A link the actor may see (owner or active member); not_found otherwise. */
export function viewLink(deps: LinkDeps, actor: UserRow, id: string): Promise<AccessibleLink> {
  return accessibleLink(deps.db, actor, id, "view");
}

export async function updateLink(deps: LinkDeps, actor: UserRow, id: string, input: UpdateLinkInput): Promise<LinkView> {
  requireActive(actor);
  const { link, owner } = await accessibleLink(deps.db, actor, id, "edit");
  const now = deps.clock.now();
  const set: LinkUpdate = {};

  if (input.url !== undefined) {
    if (input.url === null) throw invalid("url", "is required");
    set.url = normalizeDestination(input.url, "url", deps.ownHost);
  }
  if (input.alias !== undefined && input.alias !== link.alias) {
    if (input.alias === null || input.alias === "") throw invalid("alias", "cannot be removed; choose another alias");
    set.alias = checkAlias(input.alias);
  }
  if (input.domain !== undefined) {
    // Unchanged (even on a domain gone back to pending) needs no check; a move needs the owner's verified domain.
    const same = (input.domain ?? "").trim().toLowerCase().replace(/\.$/, "") === (link.domain || "");
    if (!same) {
      const domain = await deps.linkDomain(link.owner_id ?? actor.id, input.domain);
      if (domain !== link.domain) set.domain = domain;
    }
  }
  if (input.ios_url !== undefined) set.ios_url = input.ios_url === null ? null : normalizeDestination(input.ios_url, "ios_url", deps.ownHost);
  if (input.android_url !== undefined) {
    set.android_url = input.android_url === null ? null : normalizeDestination(input.android_url, "android_url", deps.ownHost);
  }
  if (input.expires_at !== undefined) {
    if (input.expires_at === null) set.expires_at = null;
    else {
      requireCapability(owner.plan, "link_expiration", "Link expiration");
      set.expires_at = parseExpiry(input.expires_at, now);
    }
  }
  if (input.max_clicks !== undefined) {
    if (input.max_clicks === null) set.max_clicks = null;
    else {
      requireCapability(owner.plan, "link_max_clicks", "A maximum number of clicks");
      set.max_clicks = checkMaxClicks(input.max_clicks);
    }
  }
  // Only destinations this edit sets: other changes to a link already pointing at a blocked host stay possible.
  refuseBlocked(deps, { url: set.url, ios_url: set.ios_url, android_url: set.android_url });
  if (input.password !== undefined) set.password_hash = input.password === null ? null : await hashPassword(checkLinkPassword(input.password));

  if (Object.keys(set).length === 0) return link;
  // A new limit applies to the clicks so far: their count must be current, not held back with the roll-ups.
  if (set.max_clicks != null) await deps.settleClicks();
  set.updated_at = now;
  const key = { domain: set.domain ?? link.domain, alias: set.alias ?? link.alias };
  const moves = set.domain !== undefined || set.alias !== undefined;
  set.updated_by = actor.id;
  try {
    // A move releases the old address (recorded by a trigger) and claims the new one: only the link's
    // owner may take back an alias that owner gave up.
    await deps.db.transaction().execute(async (trx) => {
      if (set.domain) await deps.holdDomain(trx, link.owner_id ?? actor.id, set.domain);
      await trx.updateTable("links").set(set).where("id", "=", id).execute();
      if (moves) await claimAlias(trx, key, link.owner_id, false);
    });
  } catch (err) {
    if (isUniqueViolation(err) || err instanceof AliasReserved) throw aliasTaken(key.alias);
    throw err;
  }
  const updated = await loadLinkView(deps.db, id);
  if (!updated) throw new DomainError("not_found", "No such link");
  await announce(deps, [
    { domain: link.domain, alias: link.alias },
    ...(updated.domain !== link.domain || updated.alias !== link.alias ? [{ domain: updated.domain, alias: updated.alias }] : []),
  ]);
  return updated;
}

/** Hard delete (its clicks go with it); every instance answers 404 from then on. */
export async function deleteLink(deps: LinkDeps, actor: UserRow, id: string): Promise<void> {
  requireActive(actor);
  const { link } = await accessibleLink(deps.db, actor, id, "delete");
  const r = await deps.db.deleteFrom("links").where("id", "=", id).where("owner_id", "=", actor.id).executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new DomainError("not_found", "No such link");
  await announce(deps, [{ domain: link.domain, alias: link.alias }]);
}
