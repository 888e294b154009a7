// Folder access from the identity provider's groups (docs/scim.md, Groups and folders): a SCIM group named
// `folder:<folder name>:<none|read|write>` gives its members that access to the owner's folder of that name (the
// name compared without regard to case). Several such groups on one folder: the highest (write > read > none). A
// setting made in snip (folder_access, docs/folders.md) wins over the groups', and neither gives more than the
// member's role. Read per request with the rest of the member's limits (teams/access.ts), so a group change, a
// folder renamed into or out of a group's name, or a deactivated person holds from the next request.
import type { Db } from "../storage/db.js";
import type { Trx } from "../storage/owner-caps.js";
import { FOLDER_ACCESS, type FolderAccess } from "../contract/roles.js";

const FOLDER_GROUP_RE = /^folder:(.+):(none|read|write)$/i;

/** The folder name (lower case) and the access a group's displayName gives, or null for any other group. */
export function folderOfGroup(displayName: string): { name: string; access: FolderAccess } | null {
  const m = FOLDER_GROUP_RE.exec(displayName.trim());
  const name = m?.[1]?.trim().toLowerCase();
  return m && name ? { name, access: (m[2] as string).toLowerCase() as FolderAccess } : null;
}

/** The higher of two accesses. */
const higher = (a: FolderAccess | undefined, b: FolderAccess): FolderAccess => (a === undefined || FOLDER_ACCESS.indexOf(b) > FOLDER_ACCESS.indexOf(a) ? b : a);

/**
 * What the SCIM groups of the owner's connection give, as rows of (member, folder, access): for one member across
 * the owner's folders, or for every member in one folder. Only active provisioned people count; nothing without
 * a connection or without folder groups.
 */
export async function groupFolderAccess(
  db: Db | Trx,
  ownerId: string,
  only: { memberId: string } | { folderId: string },
): Promise<Array<{ member_id: string; folder_id: string; access: FolderAccess }>> {
  let q = db
    .selectFrom("scim_users as u")
    .innerJoin("sso_connections as c", "c.id", "u.connection_id")
    .innerJoin("scim_group_members as m", "m.scim_user_id", "u.id")
    .innerJoin("scim_groups as g", "g.id", "m.group_id")
    .select(["u.user_id", "g.display_name"])
    .where("c.owner_id", "=", ownerId)
    .where("u.active", "=", 1)
    .where("g.display_key", "like", "folder:%");
  if ("memberId" in only) q = q.where("u.user_id", "=", only.memberId);
  const groups = (await q.execute()).flatMap((r) => {
    const f = folderOfGroup(r.display_name);
    return f ? [{ member_id: r.user_id, ...f }] : [];
  });
  if (groups.length === 0) return [];
  // Folder names are unique per owner without regard to case (folders.name_key).
  let fq = db
    .selectFrom("folders")
    .select(["id", "name_key"])
    .where("owner_id", "=", ownerId)
    .where("name_key", "in", [...new Set(groups.map((g) => g.name))]);
  if ("folderId" in only) fq = fq.where("id", "=", only.folderId);
  const folderOf = new Map((await fq.execute()).map((f) => [f.name_key, f.id]));
  const given = new Map<string, { member_id: string; folder_id: string; access: FolderAccess }>();
  for (const g of groups) {
    const folderId = folderOf.get(g.name);
    if (folderId === undefined) continue;
    const key = `${g.member_id} ${folderId}`;
    given.set(key, { member_id: g.member_id, folder_id: folderId, access: higher(given.get(key)?.access, g.access) });
  }
  return [...given.values()];
}
