// Editing and deleting a link (owner or active team member edits, the owner alone deletes): same checks
// as creation, null clears an option, plan-gated options follow the owner's plan whoever edits.
import { DomainError, FieldChecks, invalid } from "../shared/errors.js";
import type { LinkUpdate, UserRow } from "../storage/schema.js";
import { hashPassword } from "../accounts/passwords.js";
import { requireCapability } from "../accounts/plans.js";
import { aliasTaken } from "./aliases.js";
import { isForeignKeyViolation, isUniqueViolation } from "../storage/unique-violation.js";
import { AliasReserved, claimAlias } from "./alias-reservations.js";
import { type CreateLinkInput, requireActive } from "./create-link.js";
import { announce, type LinkDeps } from "./deps.js";
import { MESSAGES } from "../contract/form-rules.js";
import { type AccessibleLink, type LinkView, accessibleLink, loadLinkView } from "./link-access.js";
import { type LinkAccess, requireFolderWrite } from "../teams/access.js";
import { checkDetails, setLinkTags } from "./link-details.js";
import { checkStartBeforeExpiry } from "./link-delivery.js";
import { checkFolderId, folderGone } from "../teams/folders.js";
import { checkAlias, checkLinkPassword, checkMaxClicks, normalizeDestination, parseExpiry, refuseBlocked } from "./validate.js";

/** Only the fields present change; `null` clears an option. */
export type UpdateLinkInput = Omit<CreateLinkInput, "url" | "alias"> & { url?: string; alias?: string };

/** A link the actor may see (owner or active member); not_found otherwise. */
export function viewLink(deps: LinkDeps, actor: UserRow, id: string): Promise<AccessibleLink> {
  return accessibleLink(deps.db, actor, id, "view");
}

/** The folder an edit files the link in (null: none): one of the owner's the actor may write in (teams/access.ts). */
async function folderTarget(deps: LinkDeps, owner: UserRow, access: LinkAccess, folder: string | null): Promise<string | null> {
  if (folder === null || folder === "") return null;
  const checked = await checkFolderId(deps.db, owner, folder);
  requireFolderWrite(access, checked);
  return checked;
}

export async function updateLink(deps: LinkDeps, actor: UserRow, id: string, input: UpdateLinkInput): Promise<LinkView> {
  requireActive(actor);
  const { link, owner, access } = await accessibleLink(deps.db, actor, id, "edit");
  const now = deps.clock.now();
  const set: LinkUpdate = {};

  // Every wrong field is reported at once; a plan refusal still comes after the fields before it.
  const checks = new FieldChecks();
  if (input.url !== undefined) set.url = checks.run(() => normalizeDestination(input.url ?? "", "url", deps.ownHost));
  if (input.alias !== undefined && input.alias !== link.alias) {
    const alias = input.alias;
    set.alias = checks.run(() => {
      if (alias === null || alias === "") throw invalid("alias", MESSAGES.aliasRemoved);
      return checkAlias(alias);
    });
  }
  if (input.domain !== undefined) {
    // Unchanged (even on a domain gone back to pending) needs no check; a move needs the owner's verified domain.
    const same = (input.domain ?? "").trim().toLowerCase().replace(/\.$/, "") === (link.domain || "");
    if (!same) {
      const domain = await checks.runAsync(() => deps.linkDomain(link.owner_id ?? actor.id, input.domain));
      if (domain !== undefined && domain !== link.domain) set.domain = domain;
    }
  }
  if (input.ios_url !== undefined)
    set.ios_url = input.ios_url === null ? null : checks.run(() => normalizeDestination(input.ios_url as string, "ios_url", deps.ownHost));
  if (input.android_url !== undefined) {
    set.android_url = input.android_url === null ? null : checks.run(() => normalizeDestination(input.android_url as string, "android_url", deps.ownHost));
  }
  // Archiving an archived link keeps the day it was archived.
  const archived = input.archived === undefined || input.archived === (link.archived_at !== null) ? undefined : input.archived;
  const details = checkDetails(checks, { ...input, archived }, owner.plan, deps.ownHost, now);
  Object.assign(set, details.set);
  if (input.folder_id !== undefined) set.folder_id = await checks.runAsync(() => folderTarget(deps, owner, access, input.folder_id ?? null));
  // Only destinations this edit sets: other changes to a link already pointing at a blocked host stay possible.
  checks.run(() => refuseBlocked(deps, { url: set.url, ios_url: set.ios_url, android_url: set.android_url, expired_url: set.expired_url }, details.targetUrls));
  if (input.expires_at !== undefined) {
    const at = input.expires_at;
    set.expires_at =
      at === null
        ? null
        : checks.run(() => {
            requireCapability(owner.plan, "link_expiration", "Link expiration");
            return parseExpiry(at, now);
          });
  }
  if (input.max_clicks !== undefined) {
    const n = input.max_clicks;
    set.max_clicks =
      n === null
        ? null
        : checks.run(() => {
            requireCapability(owner.plan, "link_max_clicks", "A maximum number of clicks");
            return checkMaxClicks(n);
          });
  }
  checks.run(() =>
    checkStartBeforeExpiry(set.starts_at === undefined ? link.starts_at : set.starts_at, set.expires_at === undefined ? link.expires_at : set.expires_at),
  );
  const password = input.password == null ? input.password : checks.run(() => checkLinkPassword(input.password as string));
  checks.throwIfAny();
  if (password !== undefined) set.password_hash = password === null ? null : await hashPassword(password);

  if (Object.keys(set).length === 0 && details.tags === undefined) return link;
  // A new limit applies to the clicks so far: their count must be current, not held back with the roll-ups.
  if (set.max_clicks != null) await deps.settleClicks();
  set.updated_at = now;
  set.updated_by = actor.id;
  await write(deps, link, link.owner_id ?? actor.id, set, details.tags, now);
  const updated = await loadLinkView(deps.db, id);
  if (!updated) throw new DomainError("not_found", "No such link");
  await announce(deps, [
    { domain: link.domain, alias: link.alias },
    ...(updated.domain !== link.domain || updated.alias !== link.alias ? [{ domain: updated.domain, alias: updated.alias }] : []),
  ]);
  return updated;
}

/** The edit in one transaction: the link's row, its address claimed on a move, its tags. */
async function write(deps: LinkDeps, link: LinkView, ownerId: string, set: LinkUpdate, tags: string[] | undefined, now: number): Promise<void> {
  const key = { domain: set.domain ?? link.domain, alias: set.alias ?? link.alias };
  const moves = set.domain !== undefined || set.alias !== undefined;
  try {
    await deps.db.transaction().execute(async (trx) => {
      // The owner's lock keeps the owner's tag names unique and under the cap when members tag at once;
      // taken first, as creation takes it, so the two never wait on each other's locks. A move between folders
      // takes it too: bulk moves and a folder's deletion hold it before the links' rows (PostgreSQL deadlocks otherwise).
      if (tags !== undefined || set.folder_id !== undefined) await deps.caps.hold(trx, ownerId);
      if (set.domain) await deps.holdDomain(trx, ownerId, set.domain);
      await trx.updateTable("links").set(set).where("id", "=", link.id).execute();
      // A move releases the old address (recorded by a trigger) and claims the new one: only the link's
      // owner may take back an alias that owner gave up.
      if (moves) await claimAlias(trx, deps.caps, key, link.owner_id, false);
      if (tags !== undefined) await setLinkTags(trx, ownerId, link.id, tags, now);
    });
  } catch (err) {
    if (isForeignKeyViolation(err) && set.folder_id) throw folderGone();
    if (isUniqueViolation(err) || err instanceof AliasReserved) throw aliasTaken(key.alias);
    throw err;
  }
}

/** Hard delete (its clicks go with it); every instance answers 404 from then on. */
export async function deleteLink(deps: LinkDeps, actor: UserRow, id: string): Promise<void> {
  requireActive(actor);
  // The owner's link, deleted by the owner or an admin of its team (links.delete).
  const { link, owner } = await accessibleLink(deps.db, actor, id, "delete");
  const r = await deps.db.deleteFrom("links").where("id", "=", id).where("owner_id", "=", owner.id).executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new DomainError("not_found", "No such link");
  await announce(deps, [{ domain: link.domain, alias: link.alias }]);
}
