// SQL LIKE patterns for case-insensitive "contains" searches (use with `lower(col) like ? escape '\'`).

/** `%text%`, lowercased, with the pattern characters of `text` escaped by a backslash. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
