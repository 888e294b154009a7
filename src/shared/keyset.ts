// Opaque keyset cursors over (created_at, id) for lists paged newest first (links, the operator console).
import { invalid } from "../shared/errors.js";

export function encodeKeyset(row: { created_at: number | string; id: string }): string {
  return Buffer.from(`${Number(row.created_at)}:${row.id}`).toString("base64url");
}

export function decodeKeyset(cursor: string): { createdAt: number; id: string } {
  const m = /^(\d{1,16}):([A-Za-z0-9]{1,64})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m) throw invalid("cursor", "is not a cursor from a previous page");
  return { createdAt: Number(m[1]), id: m[2] as string };
}
