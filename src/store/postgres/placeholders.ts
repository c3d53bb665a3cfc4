const cache = new Map<string, string>();

/**
 * Repositories write `?` placeholders (SQLite's); PostgreSQL wants `$1, $2, ...`.
 * Our SQL never contains `?` inside string literals, so a plain scan is enough.
 */
export function toPositionalParams(sql: string): string {
  let converted = cache.get(sql);
  if (converted === undefined) {
    let n = 0;
    converted = sql.replace(/\?/g, () => `$${++n}`);
    cache.set(sql, converted);
  }
  return converted;
}
