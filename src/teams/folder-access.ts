// Per-member folder access (docs/folders.md, Access): the owner, or an admin (members.manage, within its rank: members
// and viewers only), sets a member's access to one of the owner's folders to none, read or write (Enterprise), or takes
// it back to the role's default (any plan). Each change is audited in its own transaction under the owner's lock, so
// concurrent changes leave one row and each entry's `before` is the previous `after`. What the access does is
// enforced by teams/access.ts, read per request.
import { DomainError, invalid } from "../shared/errors.js";
import type { Db } from "../storage/db.js";
import type { FolderRow, UserRow } from "../storage/schema.js";
import type { OwnerCaps, Trx } from "../storage/owner-caps.js";
import type { AuditWriter } from "../storage/audit-writer.js";
import { requireCapability } from "../accounts/plans.js";
import { isForeignKeyViolation } from "../storage/unique-violation.js";
import { type FolderAccess, type TeamRole, assignableRoleOf, effectiveFolderAccess, isFolderAccess, mayChangeRole } from "../contract/roles.js";
import type { FolderMemberAccess } from "../contract/folders.js";
import { effectiveRole, ownerAccess, requireMay } from "./access.js";
import { groupFolderAccess } from "./folder-groups.js";

export interface FolderAccessDeps {
  db: Db;
  caps: OwnerCaps;
  now: () => number;
  audit: AuditWriter;
}

interface Managed {
  folder: FolderRow;
  owner: UserRow;
  /** The manager's role: owner, or admin. */
  role: TeamRole;
}

const noFolder = () => new DomainError("not_found", "No such folder");

/** The folder and its owner, for an actor that manages its members (owner, admin); not_found without access or for a folder hidden from it. */
async function managedFolder(db: Db, actor: UserRow, folderId: string): Promise<Managed> {
  const folder = await db.selectFrom("folders").selectAll().where("id", "=", folderId).executeTakeFirst();
  if (!folder) throw noFolder();
  const access = await ownerAccess(db, actor, folder.owner_id);
  if (access.folders.hidden.has(folder.id)) throw noFolder();
  requireMay(access, "members.manage", "No such folder");
  return { folder, owner: access.owner, role: access.role as TeamRole };
}

type MemberRow = { member_id: string; email: string; role: string; access: string | null };

function memberRows(db: Db | Trx, folder: FolderRow) {
  return db
    .selectFrom("team_members")
    .innerJoin("users", "users.id", "team_members.member_id")
    .leftJoin("folder_access", (j) => j.onRef("folder_access.member_id", "=", "team_members.member_id").on("folder_access.folder_id", "=", folder.id))
    .select(["team_members.member_id", "users.email", "team_members.role", "folder_access.access"])
    .where("team_members.owner_id", "=", folder.owner_id)
    .where("users.status", "=", "active");
}

/** A member's access to the folder: `grouped`, what its SCIM groups give there (null: nothing); a stated access wins. */
function view(owner: UserRow, r: MemberRow, grouped: FolderAccess | null): FolderMemberAccess {
  const role = effectiveRole(owner, r.role);
  const stated = r.access === null ? null : isFolderAccess(r.access) ? r.access : "none";
  return {
    user_id: r.member_id,
    email: r.email,
    role: assignableRoleOf(role),
    access: stated,
    group_access: grouped,
    effective: effectiveFolderAccess(role, stated ?? grouped),
  };
}

/** What the SCIM groups give each member in the folder. */
async function groupsIn(db: Db | Trx, folder: FolderRow): Promise<Map<string, FolderAccess>> {
  return new Map((await groupFolderAccess(db, folder.owner_id, { folderId: folder.id })).map((g) => [g.member_id, g.access]));
}

/** The member whose access `m` may set: an active member ranked below the manager (the owner: any); the owner itself never. */
async function changeable(trx: Db | Trx, m: Managed, userId: string): Promise<MemberRow> {
  if (userId === m.owner.id) throw new DomainError("forbidden", "The team's owner has every access to its folders", undefined, { member_role: "owner" });
  const row = await memberRows(trx, m.folder).where("team_members.member_id", "=", userId).executeTakeFirst();
  if (!row) throw invalid("user_id", "Not an active member of this team");
  const role = effectiveRole(m.owner, row.role);
  if (!mayChangeRole(m.role, role, role)) {
    throw new DomainError("forbidden", `As ${m.role} you cannot set the folder access of a member whose role is ${role}`, undefined, {
      role: m.role,
      member_role: role,
    });
  }
  return row;
}

export class FolderAccessService {
  constructor(private readonly deps: FolderAccessDeps) {}

  /** GET /api/folders/{id}/access: every active member of the owner's team with its role, stated and effective access. */
  async list(actor: UserRow, folderId: string): Promise<FolderMemberAccess[]> {
    const m = await managedFolder(this.deps.db, actor, folderId);
    const [rows, grouped] = await Promise.all([memberRows(this.deps.db, m.folder).execute(), groupsIn(this.deps.db, m.folder)]);
    return rows.map((r) => view(m.owner, r, grouped.get(r.member_id) ?? null)).sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
  }

  /** PUT: states `access` for the member (Enterprise: 403 plan_required below it). */
  set(actor: UserRow, folderId: string, userId: string, access: FolderAccess): Promise<FolderMemberAccess> {
    return this.change(actor, folderId, userId, access);
  }

  /** DELETE: the member's access back to its role's default (any plan: it only undoes a setting). */
  reset(actor: UserRow, folderId: string, userId: string): Promise<FolderMemberAccess> {
    return this.change(actor, folderId, userId, null);
  }

  private async change(actor: UserRow, folderId: string, userId: string, access: FolderAccess | null): Promise<FolderMemberAccess> {
    const m = await managedFolder(this.deps.db, actor, folderId);
    if (access !== null) requireCapability(m.owner.plan, "team_roles", "Folder access");
    const now = this.deps.now();
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        await this.deps.caps.hold(trx, m.owner.id);
        const row = await changeable(trx, m, userId);
        if (!(await trx.selectFrom("folders").select("id").where("id", "=", folderId).executeTakeFirst())) throw noFolder();
        const grouped = (await groupsIn(trx, m.folder)).get(userId) ?? null;
        const before = view(m.owner, row, grouped);
        const after = view(m.owner, { ...row, access }, grouped);
        if (row.access === access) return after;
        if (access === null) {
          await trx.deleteFrom("folder_access").where("folder_id", "=", folderId).where("member_id", "=", userId).execute();
        } else {
          await trx
            .insertInto("folder_access")
            .values({ folder_id: folderId, owner_id: m.owner.id, member_id: userId, access, updated_at: now })
            .onConflict((oc) => oc.columns(["folder_id", "member_id"]).doUpdateSet({ access, updated_at: now }))
            .execute();
        }
        await this.deps.audit.record(trx, { id: actor.id, email: actor.email }, now, {
          action: "folder.access",
          teamId: m.owner.id,
          targetType: "account",
          targetId: userId,
          summary: `set ${row.email}'s access to folder “${m.folder.name}” of ${m.owner.email} from ${before.access ?? "default"} to ${access ?? "default"}`,
          before: { owner_id: m.owner.id, folder_id: folderId, access: before.access, effective: before.effective },
          after: { owner_id: m.owner.id, folder_id: folderId, access: after.access, effective: after.effective },
        });
        return after;
      });
    } catch (err) {
      // The folder deleted, or the membership ended, between the checks and the write.
      if (isForeignKeyViolation(err)) throw invalid("user_id", "Not an active member of this team");
      throw err;
    }
  }
}
