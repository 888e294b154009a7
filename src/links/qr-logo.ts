// Whose picture a QR code's centre logo shows: the link owner's, drawn only for the owner and the active
// members of the owner's team. The QR image itself is public; a profile picture is not, so a logo is never
// drawn for someone who could not see the picture in the dashboard.
import { DomainError } from "../shared/errors.js";
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import { ownerAccess } from "../teams/access.js";

/** The picture of a code's logo: its identity (owner and version, for caches and ETags) or null when the owner has none. */
export interface QrLogoPicture {
  ownerId: string;
  id: string | null;
}

export async function qrLogoPicture(db: Db, actor: UserRow | null, ownerId: string | null): Promise<QrLogoPicture> {
  if (!actor) throw new DomainError("unauthenticated", "Sign in as the link's owner or a member of its team to draw a logo");
  const access = await ownerAccess(db, actor, ownerId);
  if (access.role === "none" || !access.owner || !access.may("links.view")) {
    throw new DomainError("forbidden", "Only the link's owner and the members of its team can draw the owner's picture in its QR code");
  }
  const owner = access.owner;
  return { ownerId: owner.id, id: owner.picture_updated_at === null ? null : `${owner.id}:${owner.picture_updated_at}` };
}
