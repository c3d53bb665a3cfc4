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
    const text = numbered(sql, 0);
    known = { text, placeholders: text === sql ? 0 : countMarks(sql) };
    portable.set(sql, known);
  }
  if (known.placeholders !== params.length) throw new Error(`BUG: a statement with ${known.placeholders} placeholders and ${params.length} parameters`);
  const text = known.text;
  return { text, params, get name() { return nameOf(text); } };
}

/**
 * Statements joined into one (postgres/write-queue.ts): each is numbered after the parameters of
 * those before it, and `join` writes the whole from their texts.
 */
export function joinedStatement(parts: readonly { sql: Statement; params: readonly unknown[] }[], join: (texts: string[]) => string): PositionalStatement {
  const texts: string[] = [];
  const params: unknown[] = [];
  for (const part of parts) {
    if (part.sql instanceof Sql) {
      const offset = params.length;
      const compiled = compileSql(part.sql, (i) => postgresDialect.placeholder(offset + i));
      texts.push(compiled.text);
      params.push(...compiled.params);
    } else {
      if (countMarks(part.sql) !== part.params.length) throw new Error(`BUG: a statement with ${countMarks(part.sql)} placeholders and ${part.params.length} parameters`);
      texts.push(numbered(part.sql, params.length));
      params.push(...part.params);
    }
  }
  const text = join(texts);
  return { text, params, get name() { return nameOf(text); } };
}

const countMarks = (sql: string) => sql.split('?').length - 1;

/** Portable text with its marks numbered from `$${offset + 1}`. */
function numbered(sql: string, offset: number): string {
  let n = offset;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Portable text in PostgreSQL's form (for tests that run the store's statements themselves). */
export function toPositionalParams(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
