// Many links at once, from the list's multi-select (docs/api.md, Links): archive or restore, add or
// remove tags or move to a folder (a role with links.edit), delete (links.delete: owner and admin; docs/roles.md). All or nothing: a link the caller may not
// change, or a tag that would pass a link's limit, refuses the whole request and changes nothing.
import { DomainError, FieldChecks, invalid } from "../shared/errors.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { type LinkAccess, ownerAccess, requireFolderWrite, requireLinkMay } from "../teams/access.js";
import { ensureTags } from "../tags/tags.js";
import { MAX_TAGS_PER_LINK, MESSAGES } from "../contract/form-rules.js";
import type { BulkEditFields } from "../contract/links.js";
import { requireActive } from "./create-link.js";
import { announce, type LinkDeps } from "./deps.js";
import { checkTagNames } from "./link-details.js";
import { checkFolderId, folderGone } from "../teams/folders.js";
import { isForeignKeyViolation } from "../storage/unique-violation.js";

/** The links of `ids` (duplicates ignored), all of one owner the actor may act for; not_found otherwise. */
async function accessible(
  deps: LinkDeps,
  actor: UserRow,
  ids: string[],
  action: "edit" | "delete",
): Promise<{ links: LinkRow[]; ownerId: string; owner: UserRow; access: LinkAccess }> {
  const unique = [...new Set(ids)];
  const links = await deps.db.selectFrom("links").selectAll().where("id", "in", unique).execute();
  const owners = new Set(links.map((l) => l.owner_id));
  const ownerId = links[0]?.owner_id ?? null;
  if (links.length !== unique.length || owners.size !== 1 || ownerId === null)
    throw new DomainError("not_found", "No such link (one of ids is not a link you can change)");
  const access = await ownerAccess(deps.db, actor, ownerId);
  // Every link through the one check: one in a folder hidden from the actor is not found, one in a folder it only reads forbidden.
  const what = "No such link (one of ids is not a link you can change)";
  for (const link of links) requireLinkMay(access, link, "links.view", what);
  for (const link of links) requireLinkMay(access, link, action === "delete" ? "links.delete" : "links.edit", what);
  return { links, ownerId, owner: access.owner as UserRow, access };
}

/** The ids of the links changed, in the order asked. */
export async function bulkEdit(deps: LinkDeps, actor: UserRow, input: BulkEditFields): Promise<string[]> {
  requireActive(actor);
  const checks = new FieldChecks();
  const add = input.add_tags === undefined ? [] : (checks.run(() => checkTagNames(input.add_tags!, "add_tags")) ?? []);
  const remove = input.remove_tags === undefined ? [] : (checks.run(() => checkTagNames(input.remove_tags!, "remove_tags")) ?? []);
  checks.throwIfAny();
  if (input.archived === undefined && add.length === 0 && remove.length === 0 && input.folder_id === undefined) {
    throw new DomainError("invalid_request", "Give archived, add_tags, remove_tags or folder_id", [{ field: "archived", message: "Choose what to change" }]);
  }
  const { links, ownerId, owner, access } = await accessible(deps, actor, input.ids, "edit");
  const folderId = input.folder_id === undefined ? undefined : await checkFolderId(deps.db, owner, input.folder_id);
  if (folderId !== undefined) requireFolderWrite(access, folderId);
  const ids = links.map((l) => l.id);
  const now = deps.clock.now();
  await deps.db
    .transaction()
    .execute(async (trx) => {
      await deps.caps.hold(trx, ownerId);
      if (folderId !== undefined) {
        await trx.updateTable("links").set({ folder_id: folderId, updated_at: now, updated_by: actor.id }).where("id", "in", ids).execute();
      }
      if (input.archived !== undefined) {
        const q = trx
          .updateTable("links")
          .set({ archived_at: input.archived ? now : null, updated_at: now, updated_by: actor.id })
          .where("id", "in", ids);
        await (input.archived ? q.where("archived_at", "is", null) : q.where("archived_at", "is not", null)).execute();
      }
      if (remove.length > 0) {
        const tagIds = trx
          .selectFrom("tags")
          .select("id")
          .where("owner_id", "=", ownerId)
          .where(
            "name_key",
            "in",
            remove.map((n) => n.toLowerCase()),
          );
        await trx.deleteFrom("link_tags").where("link_id", "in", ids).where("tag_id", "in", tagIds).execute();
      }
      if (add.length > 0) {
        const tagIds = await ensureTags(trx, ownerId, add, now);
        const held = await trx.selectFrom("link_tags").select(["link_id", "tag_id"]).where("link_id", "in", ids).execute();
        const pairs = new Set(held.map((h) => `${h.link_id} ${h.tag_id}`));
        const rows = ids.flatMap((link_id) => tagIds.filter((tag_id) => !pairs.has(`${link_id} ${tag_id}`)).map((tag_id) => ({ link_id, tag_id })));
        const perLink = new Map<string, number>();
        for (const r of [...held, ...rows]) perLink.set(r.link_id, (perLink.get(r.link_id) ?? 0) + 1);
        if ([...perLink.values()].some((n) => n > MAX_TAGS_PER_LINK)) throw invalid("add_tags", MESSAGES.tooManyTags);
        if (rows.length > 0) await trx.insertInto("link_tags").values(rows).execute();
      }
    })
    .catch((err: unknown) => {
      throw isForeignKeyViolation(err) && folderId ? folderGone() : err;
    });
  // The redirect caches hold each link's folder (its clicks' events name it): the moved links are dropped from them.
  if (folderId !== undefined)
    await announce(
      deps,
      links.map((l) => ({ domain: l.domain, alias: l.alias })),
    );
  return [...new Set(input.ids)];
}

/** Deletes the links (links.delete: the owner and admins); every instance answers 404 for them from then on. */
export async function bulkDelete(deps: LinkDeps, actor: UserRow, ids: string[]): Promise<number> {
  requireActive(actor);
  const { links, ownerId } = await accessible(deps, actor, ids, "delete");
  // Under the owning account's lock, as creations are: each link deleted counts down the account's link_counts row,
  // whose check of the users row must not wait on a creation that waits on one of these rows (PostgreSQL).
  const r = await deps.db.transaction().execute(async (trx) => {
    await deps.caps.hold(trx, ownerId);
    return trx
      .deleteFrom("links")
      .where(
        "id",
        "in",
        links.map((l) => l.id),
      )
      .where("owner_id", "=", ownerId)
      .executeTakeFirst();
  });
  await announce(
    deps,
    links.map((l) => ({ domain: l.domain, alias: l.alias })),
  );
  return Number(r.numDeletedRows);
}
