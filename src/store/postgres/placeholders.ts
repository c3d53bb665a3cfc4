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
    known = { text: toPositionalParams(sql), placeholders: countMarks(sql) };
    portable.set(sql, known);
  }
  checkMarks(known.placeholders, params);
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
      checkMarks(countMarks(part.sql), part.params);
      texts.push(toPositionalParams(part.sql, params.length));
      params.push(...part.params);
    }
  }
  const text = join(texts);
  return { text, params, get name() { return nameOf(text); } };
}

const countMarks = (sql: string) => sql.split('?').length - 1;

function checkMarks(marks: number, params: readonly unknown[]): void {
  if (marks !== params.length) throw new Error(`BUG: a statement with ${marks} placeholders and ${params.length} parameters`);
}

/**
 * Portable text in PostgreSQL's form, its marks numbered from `$${offset + 1}` (tests that run
 * the store's statements themselves use it too).
 */
export function toPositionalParams(sql: string, offset = 0): string {
  let n = offset;
  return sql.replace(/\?/g, () => `$${++n}`);
}
