// Loading a link for an actor through the teams access rule (teams/access.ts, the role table of contract/roles.ts):
// every role sees it, owner, admin and member edit it, owner and admin delete it (a member or viewer gets
// forbidden), anyone else gets not_found (the link's existence is not revealed).
import { DomainError } from "../shared/errors.js";
import type { SelectQueryBuilder } from "kysely";
import type { Db } from "../storage/db.js";
import type { Database, LinkRow, UserRow } from "../storage/schema.js";
import { type LinkAccess, linkAccess, ownerAccessOrNone, requireLinkMay } from "../teams/access.js";
import type { TeamAction, TeamRole } from "../contract/roles.js";
import { invalid } from "../shared/errors.js";

/** A link as the dashboard reads it: with the email of its last editor. */
export type LinkView = LinkRow & { updated_by_email: string | null };

export type LinkAction = "view" | "edit" | "delete";

export interface AccessibleLink {
  link: LinkView;
  role: TeamRole;
  /** The link's owner: plan-gated options and statistics follow this account's plan. */
  owner: UserRow;
  /** The actor's access to the owner's links (its folder limits: a move into a folder asks it). */
  access: LinkAccess;
}

/** Rows of `links`, alone or joined to tables that narrow them down (the list's). */
export type LinksFrom = SelectQueryBuilder<Database, "links", object>;

/** Links with their last editor's email (one indexed lookup per row, only for edited links). */
export function selectLinkViews(db: Db, from: LinksFrom = db.selectFrom("links")) {
  return from
    .selectAll("links")
    .select((eb) => eb.selectFrom("users as editor").select("editor.email").whereRef("editor.id", "=", "links.updated_by").as("updated_by_email"));
}

export async function loadLinkView(db: Db, id: string): Promise<LinkView | null> {
  return (await selectLinkViews(db).where("links.id", "=", id).executeTakeFirst()) ?? null;
}

const LINK_ACTIONS: Readonly<Record<LinkAction, TeamAction>> = { view: "links.view", edit: "links.edit", delete: "links.delete" };

export async function accessibleLink(db: Db, actor: UserRow, id: string, action: LinkAction): Promise<AccessibleLink> {
  const link = await loadLinkView(db, id);
  if (!link) throw new DomainError("not_found", "No such link");
  const access = await linkAccess(db, actor, link);
  requireLinkMay(access, link, LINK_ACTIONS[action], "No such link");
  return { link, role: access.role as TeamRole, owner: access.owner, access };
}

/** The most link ids one read of per-link figures (the list's sparklines) takes. */
export const MAX_LINK_IDS = 100;
const LINK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A comma-separated list of link ids (`?ids=`): trimmed, deduplicated, each well formed, at most MAX_LINK_IDS. */
export function parseLinkIds(text: string): string[] {
  const ids = [...new Set(text.split(",").map((s) => s.trim()))];
  if (ids.length === 1 && ids[0] === "") throw invalid("ids", "must name at least one link id");
  if (ids.length > MAX_LINK_IDS) throw invalid("ids", `must name at most ${MAX_LINK_IDS} links`);
  if (!ids.every((id) => LINK_ID.test(id))) throw invalid("ids", "must be link ids separated by commas");
  return ids;
}

/**
 * The links of `ids` the actor may read (its own, and a team owner's for an active member), as the click
 * tables know them; unknown ids and other accounts' links are left out without saying which, and so are the
 * links of an owner whose two-factor policy the actor has not met (the others still answer).
 */
export async function readableLinks(db: Db, actor: UserRow, ids: string[]): Promise<Array<{ id: string; num: number }>> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom("links").select(["id", "num", "owner_id", "folder_id"]).where("id", "in", ids).execute();
  // A page of the list holds one owner's links: one access check per distinct owner (links in folders hidden from the actor left out).
  const accesses = new Map<string, LinkAccess>();
  for (const ownerId of new Set(rows.flatMap((r) => (r.owner_id === null ? [] : [r.owner_id]))))
    accesses.set(ownerId, await ownerAccessOrNone(db, actor, ownerId));
  const visible = (r: (typeof rows)[number]) => {
    const access = r.owner_id === null ? undefined : accesses.get(r.owner_id);
    return access !== undefined && access.role !== "none" && (r.folder_id === null || !access.folders.hidden.has(r.folder_id));
  };
  return rows.filter(visible).map((r) => ({ id: r.id, num: Number(r.num) }));
}
