// The counts the access path is chosen by (access-path.ts), several in one statement: how many
// rows a condition's own index yields, up to PROBE_CAP (SQLite keeps no statistics of values, and
// a count that stops early costs little), and how many documents a dataset holds of some types.
import { join, isIn, raw, sql, type Sql } from '../../sql-fragment.ts';
import { PROBE_CAP, type ProbedCondition } from '../access-path.ts';
import { bounds } from './conditions.ts';
import type { Scope } from './compile-query.ts';

export type Count = { kind: 'rows'; condition: ProbedCondition } | { kind: 'documents'; types: readonly string[] | null };

function countSql({ projectId, dataset }: Scope, count: Count): Sql {
  if (count.kind === 'documents') {
    const types = count.types ? sql` AND ${isIn('d.type', count.types)}` : raw('');
    return sql`SELECT COUNT(*) FROM documents d WHERE d.project_id = ${projectId} AND d.dataset = ${dataset}${types}`;
  }
  const { condition } = count;
  const rows =
    condition.kind === 'value'
      ? sql`document_values x WHERE x.project_id = ${projectId} AND x.dataset = ${dataset} AND x.path = ${condition.path} AND ${bounds('x.value', condition.low, condition.high)}`
      : sql`documents d WHERE d.project_id = ${projectId} AND d.dataset = ${dataset} AND ${condition.kind === 'type' ? isIn('d.type', condition.types) : bounds('d.id', condition.low, condition.high)}`;
  return sql`SELECT COUNT(*) FROM (SELECT 1 FROM ${rows} LIMIT ${raw(String(PROBE_CAP))}) p`;
}

/** One row: each count as column `c<i>`. */
export function compileCounts(scope: Scope, counts: readonly Count[]): Sql {
  return sql`SELECT ${join(counts.map((count, i) => sql`(${countSql(scope, count)}) AS ${raw(`c${i}`)}`))}`;
}
