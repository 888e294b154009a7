// SCIM resources as answered (RFC 7643 4.1, 4.2): Users and Groups with their meta, and the list response.
import { iso } from "../../shared/clock.js";
import type { ScimGroupRow, ScimUserRow } from "../../storage/schema.js";
import { GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA, type StoredAttributes, type UserState } from "./user-attributes.js";
import { SCIM_PATH } from "./tokens.js";

export type ScimResource = Record<string, unknown>;

export function stateOf(row: ScimUserRow): UserState {
  const a = JSON.parse(row.attributes) as StoredAttributes;
  return { userName: row.user_name, externalId: row.external_id, active: Number(row.active) === 1, displayName: a.displayName, name: a.name, emails: a.emails };
}

const meta = (origin: string, type: "User" | "Group", id: string, created: number, updated: number) => ({
  resourceType: type,
  created: iso(Number(created)),
  lastModified: iso(Number(updated)),
  location: `${origin}${SCIM_PATH}/${type}s/${id}`,
  version: `W/"${Number(updated)}"`,
});

export function userResource(origin: string, row: ScimUserRow, groups: { id: string; display_name: string }[]): ScimResource {
  const s = stateOf(row);
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(s.externalId === null ? {} : { externalId: s.externalId }),
    userName: s.userName,
    name: s.name,
    ...(s.displayName === null ? {} : { displayName: s.displayName }),
    emails: s.emails,
    active: s.active,
    groups: groups.map((g) => ({ value: g.id, display: g.display_name, $ref: `${origin}${SCIM_PATH}/Groups/${g.id}` })),
    meta: meta(origin, "User", row.id, row.created_at, row.updated_at),
  };
}

export function groupResource(origin: string, row: ScimGroupRow, members: { id: string; user_name: string }[] | null): ScimResource {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id === null ? {} : { externalId: row.external_id }),
    displayName: row.display_name,
    ...(members === null ? {} : { members: members.map((m) => ({ value: m.id, display: m.user_name, $ref: `${origin}${SCIM_PATH}/Users/${m.id}` })) }),
    meta: meta(origin, "Group", row.id, row.created_at, row.updated_at),
  };
}

export function listResponse(resources: ScimResource[], total: number, startIndex: number): ScimResource {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}

/** startIndex (1-based, below 1 reads as 1) and count (default 100, at most 200; below 0 reads as 0), per RFC 7644 3.4.2.4. */
export function paging(q: { startIndex?: string; count?: string }): { startIndex: number; count: number } {
  const num = (v: string | undefined, dflt: number) => (v !== undefined && /^-?\d{1,9}$/.test(v) ? Number(v) : dflt);
  return { startIndex: Math.max(1, num(q.startIndex, 1)), count: Math.min(200, Math.max(0, num(q.count, 100))) };
}
