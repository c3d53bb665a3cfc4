import type { Database, SqlExecutor } from '../sql.ts';
import type { PlannerStatisticsEngine, RefreshOutcome } from '../planner-statistics.ts';

/**
 * The tables whose statements need statistics to be planned well: the query planner's
 * (src/store/document-index), and the revisions and the change log that history reads by
 * transaction id (without statistics PostgreSQL read a dataset's whole change log for 50 ids).
 */
export const PLANNER_TABLES = ['documents', 'document_values', 'document_entries', 'document_shapes', 'document_references', 'revisions', 'document_changes'] as const;

/** Changes that make a table's statistics stale: autovacuum's own rule and settings (50 + 10% of its rows by default). */
const STALE_AFTER = (rows: string) =>
  `current_setting('autovacuum_analyze_threshold')::float8 + current_setting('autovacuum_analyze_scale_factor')::float8 * GREATEST(${rows}, 0)`;

const DOCUMENTS_COUNTED = "(SELECT reltuples FROM pg_class WHERE oid = to_regclass('documents'))";

/**
 * The planner's tables that hold pages and whose statistics are missing (never analyzed: a fresh
 * import, a restore; reltuples is -1 until something counts the rows, and 0 once an ANALYZE found
 * none, as after a rolled-back import, which is not asked again), stale by the server's count of
 * changes since the last ANALYZE, or stale after the documents this process wrote (the parameter;
 * the server's counts may lag or be off).
 */
const STALE_TABLES = `
  SELECT t.name FROM (VALUES ${PLANNER_TABLES.map((table) => `('${table}')`).join(', ')}) t(name)
  JOIN pg_class c ON c.oid = to_regclass(t.name)
  LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
  WHERE pg_relation_size(c.oid) > 0 AND (
    (c.reltuples <> 0 AND NOT EXISTS (SELECT 1 FROM pg_stats p WHERE p.schemaname = current_schema() AND p.tablename = t.name))
    OR COALESCE(s.n_mod_since_analyze, 0) > ${STALE_AFTER('c.reltuples')}
    OR ? > ${STALE_AFTER(DOCUMENTS_COUNTED)})`;

/** One refresh at a time per schema, across instances. */
const LOCK_KEY = "hashtextextended('planner-statistics:' || current_schema(), 0)";

async function dueAfter(tx: SqlExecutor): Promise<number> {
  const row = await tx.get<{ due: number }>(`SELECT ${STALE_AFTER(DOCUMENTS_COUNTED)} AS due`);
  return Math.ceil(row?.due ?? 0);
}

/**
 * ANALYZE of the planner's tables that need it, in a transaction of its own holding an advisory
 * lock: an instance that finds another at it leaves the work to it (or, at start, waits and looks
 * again, finding nothing left to do). ANALYZE samples a bounded number of rows per table, so its
 * cost does not grow with the dataset as a scan's would.
 */
export function postgresPlannerStatistics(db: Database): PlannerStatisticsEngine {
  return {
    refresh: ({ written, wait }) =>
      db.transaction(async (tx): Promise<RefreshOutcome> => {
        if (wait) await tx.get(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
        else if (!(await tx.get<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${LOCK_KEY}) AS locked`))?.locked) {
          return { refreshed: false, dueAfter: written };
        }
        const stale = (await tx.all<{ name: string }>(STALE_TABLES, [written])).map((row) => row.name);
        if (stale.length > 0) await tx.run(`ANALYZE ${stale.join(', ')}`);
        return { refreshed: stale.length > 0, dueAfter: await dueAfter(tx) };
      }),
  };
}
