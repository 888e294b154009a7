// Loading a link for an actor through the teams access rule: owner and active members see and edit it,
// only the owner deletes it, anyone else gets not_found (the link's existence is not revealed).
import { DomainError } from "../shared/errors.js";
import type { Db } from "../storage/db.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { linkAccess } from "../teams/access.js";

/** A link as the dashboard reads it: with the email of its last editor. */
export type LinkView = LinkRow & { updated_by_email: string | null };

export type LinkAction = "view" | "edit" | "delete";

export interface AccessibleLink {
  link: LinkView;
  role: "owner" | "member";
  /** The link's owner: plan-gated options and statistics follow this account's plan. */
  owner: UserRow;
}

/** Links with their last editor's email (one indexed lookup per row, only for edited links). */
export function selectLinkViews(db: Db) {
  return db
    .selectFrom("links")
    .selectAll("links")
    .select((eb) => eb.selectFrom("users as editor").select("editor.email").whereRef("editor.id", "=", "links.updated_by").as("updated_by_email"));
}

export async function loadLinkView(db: Db, id: string): Promise<LinkView | null> {
  return (await selectLinkViews(db).where("links.id", "=", id).executeTakeFirst()) ?? null;
}

export async function accessibleLink(db: Db, actor: UserRow, id: string, action: LinkAction): Promise<AccessibleLink> {
  const link = await loadLinkView(db, id);
  const access = link ? await linkAccess(db, actor, link) : null;
  if (!link || !access?.owner || access.role === "none") throw new DomainError("not_found", "No such link");
  if (action === "delete" && access.role !== "owner") throw new DomainError("forbidden", "Only the link's owner can delete it");
  return { link, role: access.role, owner: access.owner };
}
