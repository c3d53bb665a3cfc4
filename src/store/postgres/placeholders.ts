import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { postgresDialect } from '../dialects/postgres.ts';
import type { Statement } from '../sql.ts';
import { compileSql, Sql } from '../sql-fragment.ts';

/** A statement in PostgreSQL's form, and the name it is prepared under on a connection. */
export interface PositionalStatement {
  readonly text: string;
  readonly params: readonly unknown[];
  readonly name: string;
}

// Bounded: a text holds its window's LIMIT and OFFSET, so paging through a result makes new texts.
const portable = new LRUCache<string, { text: string; placeholders: number }>({ max: 2000 });

const nameOf = (text: string) => `s${createHash('sha1').update(text).digest('base64url')}`;

/**
 * A statement with `$1, $2, ...` for its parameters. A fragment is compiled so. Portable text (a
 * repository's constant statement, SQL both engines accept) writes `?`, SQLite's placeholder; its
 * marks are numbered once per text. Portable text holds no other `?`: PostgreSQL's operators
 * that spell one (jsonb's) do not exist in SQLite, and a `?` in a literal would make the count of
 * marks differ from the parameters given, which is refused rather than run.
 */
export function positionalStatement(sql: Statement, params: readonly unknown[] = []): PositionalStatement {
  if (sql instanceof Sql) {
    const compiled = compileSql(sql, postgresDialect.placeholder);
    return { ...compiled, get name() { return nameOf(compiled.text); } };
  }
  let known = portable.get(sql);
  if (known === undefined) {
    let n = 0;
    known = { text: sql.replace(/\?/g, () => `$${++n}`), placeholders: n };
    portable.set(sql, known);
  }
  if (known.placeholders !== params.length) throw new Error(`BUG: a statement with ${known.placeholders} placeholders and ${params.length} parameters`);
  const text = known.text;
  return { text, params, get name() { return nameOf(text); } };
}

/** Portable text in PostgreSQL's form (for tests that run the store's statements themselves). */
export function toPositionalParams(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
