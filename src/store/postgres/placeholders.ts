import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A statement in PostgreSQL's form, and the name it is prepared under on a connection. */
export interface PositionalStatement {
  readonly text: string;
  readonly name: string;
}

// Bounded: a text holds its window's LIMIT and OFFSET, so paging through a result makes new texts.
const cache = new LRUCache<string, PositionalStatement>({ max: 2000 });

/**
 * Repositories write `?` placeholders (SQLite's); PostgreSQL wants `$1, $2, ...`.
 * Our SQL never contains `?` inside string literals, so a plain scan is enough.
 */
export function positionalStatement(sql: string): PositionalStatement {
  let statement = cache.get(sql);
  if (statement === undefined) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    statement = { text, name: `s${createHash('sha1').update(text).digest('base64url')}` };
    cache.set(sql, statement);
  }
  return statement;
}

export function toPositionalParams(sql: string): string {
  return positionalStatement(sql).text;
}
