// Recognises a unique-constraint violation on either engine, so a feature can turn a lost race into its own refusal.

/** True for a unique violation: SQLite (better-sqlite3) or PostgreSQL (SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown } | null;
  return e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || e?.code === "23505";
}

/** True for a foreign-key violation (a row referring to one deleted meanwhile): SQLite or PostgreSQL (SQLSTATE 23503). */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: unknown } | null;
  return e?.code === "SQLITE_CONSTRAINT_FOREIGNKEY" || e?.code === "23503";
}
