// Conditions as SQL predicates on a candidate row: through the keys of the index tables, the
// documents row `d` (its type) and the entries row `e` (values by path, the shape).
import { join, isIn, raw, sql, type Sql } from '../../sql-fragment.ts';
import type { IndexDialect } from '../dialects/dialect.ts';
import { isEquality, type Bound, type DocumentCondition } from '../document-query.ts';
import { TRUNCATED } from '../values.ts';

const TRUE = raw('1 = 1');
const FALSE = raw('1 = 0');

/** Whether `column` lies within the bounds. */
export function bounds(column: string, low: Bound | undefined, high: Bound | undefined): Sql {
  if (isEquality(low, high)) return sql`${raw(column)} = ${low!.value}`;
  const parts: Sql[] = [];
  if (low) parts.push(sql`${raw(`${column} ${low.inclusive ? '>=' : '>'} `)}${low.value}`);
  if (high) parts.push(sql`${raw(`${column} ${high.inclusive ? '<=' : '<'} `)}${high.value}`);
  return parts.length > 0 ? join(parts, ' AND ') : TRUE;
}

/** Whether the value at `path` lies within the bounds: false, never null, when there is none. */
function valueWithin(dialect: IndexDialect, path: string, low: Bound | undefined, high: Bound | undefined): Sql {
  if (isEquality(low, high)) return sql`(${dialect.entryValue(path)} = ${low!.value}) IS TRUE`;
  const parts: Sql[] = [];
  if (low) parts.push(sql`${dialect.entryValue(path)} ${raw(low.inclusive ? '>=' : '>')} ${low.value}`);
  if (high) parts.push(sql`${dialect.entryValue(path)} ${raw(high.inclusive ? '<=' : '<')} ${high.value}`);
  if (parts.length === 0) parts.push(sql`${dialect.entryValue(path)} IS NOT NULL`);
  return sql`(${join(parts, ' AND ')}) IS TRUE`;
}

/**
 * Whether the string at `path` contains each text, compared without dots and with ASCII letters
 * lowered (SQLite's lower() and PostgreSQL's under the "C" collation lower ASCII only), or is
 * held only in part: the mark of a string cut short is replaced by every text, so that one
 * reading of the value answers both. Numbers and booleans, encoded as text too, may pass: this
 * only narrows.
 */
function valueContains(dialect: IndexDialect, path: string, texts: readonly string[]): Sql {
  const all = texts.map(
    (text) => sql`${dialect.position(sql`lower(replace(replace(${dialect.entryValue(path)}, ${TRUNCATED}, ${texts.join(' ')}), '.', ''))`, sql`${text}`)} > 0`,
  );
  return sql`(${join(all, ' AND ')}) IS TRUE`;
}

/** The condition as a predicate on the row aliased `row` (whose id and scope columns it correlates with). */
export function predicate(dialect: IndexDialect, row: string, condition: DocumentCondition): Sql {
  switch (condition.kind) {
    case 'all':
      return TRUE;
    case 'none':
      return FALSE;
    case 'id':
      return isIn(`${row}.id`, condition.ids);
    case 'idRange':
      return sql`(${bounds(`${row}.id`, condition.low, condition.high)})`;
    case 'type':
      return isIn('d.type', condition.types);
    case 'references':
      if (condition.ids.length === 0) return FALSE;
      return sql`EXISTS (SELECT 1 FROM document_references r WHERE r.project_id = ${raw(row)}.project_id AND r.dataset = ${raw(row)}.dataset AND ${isIn('r.target_id', condition.ids)} AND r.id = ${raw(row)}.id)`;
    case 'value':
      return valueWithin(dialect, condition.path, condition.low, condition.high);
    case 'contains':
      return valueContains(dialect, condition.path, condition.texts);
    case 'shape':
      return isIn('e.shape', condition.hashes);
    case 'not':
      return sql`NOT (${predicate(dialect, row, condition.condition)})`;
    case 'and':
    case 'or':
      if (condition.conditions.length === 0) return condition.kind === 'and' ? TRUE : FALSE;
      return sql`(${join(condition.conditions.map((c) => predicate(dialect, row, c)), condition.kind === 'and' ? ' AND ' : ' OR ')})`;
  }
}

/**
 * Whether a condition, through not/and/or, holds one of these kinds: `type` reads the documents
 * row; `value`, `contains` and `shape` read the entries row.
 */
export function holds(condition: DocumentCondition, kinds: readonly DocumentCondition['kind'][]): boolean {
  if (condition.kind === 'not') return holds(condition.condition, kinds);
  if (condition.kind === 'and' || condition.kind === 'or') return condition.conditions.some((part) => holds(part, kinds));
  return kinds.includes(condition.kind);
}

/** What a condition may ask besides ids: conditions without them hold on any index row, which carries the id. */
export const BESIDES_IDS: readonly DocumentCondition['kind'][] = ['type', 'references', 'value', 'contains', 'shape'];
