// The link list's opaque cursors: the sort and order they were made for, the last row's sort key and its
// id. A cursor is refused with another sort or order (its key means something else there).
import type { LinkListOrder, LinkListSort } from "../contract/links.js";
import { invalid } from "../shared/errors.js";
import { decodeKeyset } from "../shared/keyset.js";

export interface ListPosition {
  key: number;
  id: string;
}

const CURSOR_RE = /^(created|clicks|last_click)\.(asc|desc)\.(\d{1,16})\.([A-Za-z0-9]{1,64})$/;

export function encodeListCursor(sort: LinkListSort, order: LinkListOrder, at: ListPosition): string {
  return Buffer.from(`${sort}.${order}.${at.key}.${at.id}`).toString("base64url");
}

export function decodeListCursor(cursor: string, sort: LinkListSort, order: LinkListOrder): ListPosition {
  const m = CURSOR_RE.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m) {
    // Cursors of the list before it had sorts (created_at:id), newest first.
    if (sort === "created" && order === "desc") {
      const c = decodeKeyset(cursor);
      return { key: c.createdAt, id: c.id };
    }
    throw invalid("cursor", "is not a cursor from a previous page");
  }
  if (m[1] !== sort || m[2] !== order) throw invalid("cursor", `was made for sort=${m[1]}&order=${m[2]}: ask for the first page of this order again`);
  return { key: Number(m[3]), id: m[4] as string };
}
