// The distinct values of one path's value rows, each with the first id that holds it, in that id's
// order: what `array::unique(*[_type == "post"].author._ref)` keeps, grouped by the index itself
// (its key runs path, value, id: each group is a run of the index, and its first id is its least).
import { join, sql, type Sql } from '../../sql-fragment.ts';
import type { IndexDialect } from '../dialects/dialect.ts';
import type { DocumentCondition } from '../document-query.ts';
import type { Scope } from './compile-query.ts';
import { predicate } from './conditions.ts';

/** Rows `value`, `first`; `onIds` are conditions on ids alone, which the value rows carry. */
export function compileFirstValues(dialect: IndexDialect, { projectId, dataset }: Scope, path: string, onIds: readonly DocumentCondition[]): Sql {
  const where = [sql`x.project_id = ${projectId}`, sql`x.dataset = ${dataset}`, sql`x.path = ${path}`, ...onIds.map((condition) => predicate(dialect, 'x', condition))];
  return sql`SELECT x.value AS value, MIN(x.id) AS first FROM document_values x WHERE ${join(where, ' AND ')} GROUP BY x.value ORDER BY first`;
}
