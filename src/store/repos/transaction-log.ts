import type { SqlExecutor } from '../sql.ts';
import { join, isIn, raw, sql, type Sql } from '../sql-fragment.ts';
import { CHANGE_COLUMNS, changeOf, type ChangeFields, type ChangeRow } from './document-changes.ts';

/** A change-log row as the transaction history reads it: one document written or deleted by one transaction. */
export interface LoggedChange extends ChangeFields {
  /** The row's place in the log: the order of a document's changes. */
  seq: number;
}

/** Which of a document's changes to read, in one direction from an optional position. */
export interface ChangeWindow {
  /** Newest first. */
  reverse: boolean;
  /** Only rows past this seq in the reading direction. */
  after?: number;
  /** Inclusive bounds on seq. */
  minSeq?: number;
  maxSeq?: number;
  /** Inclusive bounds on the transaction's time (ISO 8601 UTC with milliseconds, as stored). */
  fromTime?: string;
  toTime?: string;
  /** Only changes by these authors (`system` for changes without one). */
  authors?: readonly string[];
}

interface HistoryRow extends ChangeRow {
  seq: number | string;
}

const COLUMNS = `seq, ${CHANGE_COLUMNS}`;
const IDS_PER_STATEMENT = 500;

function toChange(row: HistoryRow): LoggedChange {
  return { seq: Number(row.seq), ...changeOf(row) };
}

/**
 * The change log read as history (document_changes, kept for good since migration 011): a
 * document's changes in order through document_changes_document, a transaction's rows through
 * document_changes_transaction. The changes of one document (and of its draft, which shares its
 * lock) are written one transaction at a time, so their seq order is their commit order on both
 * engines; rows rebuilt from older revisions have negative seq values, before every kept row.
 */
export class TransactionLogRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  /**
   * Up to `limit` changes of each document, in the window's direction: one ordered index range
   * per document, so the cost follows `limit`, not the length of the history.
   */
  async documentChanges(projectId: string, dataset: string, documentIds: readonly string[], window: ChangeWindow, limit: number): Promise<LoggedChange[]> {
    const conditions: Sql[] = [];
    if (window.after !== undefined) conditions.push(window.reverse ? sql`seq < ${window.after}` : sql`seq > ${window.after}`);
    if (window.minSeq !== undefined) conditions.push(sql`seq >= ${window.minSeq}`);
    if (window.maxSeq !== undefined) conditions.push(sql`seq <= ${window.maxSeq}`);
    if (window.fromTime !== undefined) conditions.push(sql`created_at >= ${window.fromTime}`);
    if (window.toTime !== undefined) conditions.push(sql`created_at <= ${window.toTime}`);
    if (window.authors !== undefined) conditions.push(isIn("COALESCE(actor, 'system')", window.authors));
    const where = conditions.length > 0 ? sql` AND ${join(conditions, ' AND ')}` : raw('');
    const order = raw(window.reverse ? 'DESC' : 'ASC');
    const one = (documentId: string, alias: string) =>
      sql`SELECT * FROM (SELECT ${raw(COLUMNS)} FROM document_changes WHERE project_id = ${projectId} AND dataset = ${dataset} AND document_id = ${documentId}${where}
       ORDER BY seq ${order} LIMIT ${limit}) ${raw(alias)}`;
    const changes: LoggedChange[] = [];
    for (let start = 0; start < documentIds.length; start += IDS_PER_STATEMENT) {
      const chunk = documentIds.slice(start, start + IDS_PER_STATEMENT);
      const rows = await this.db.all<HistoryRow>(join(chunk.map((documentId, index) => one(documentId, `d${index}`)), ' UNION ALL '));
      for (const row of rows) changes.push(toChange(row));
    }
    return changes;
  }

  /** Every row of these transactions, or only their rows for `documentIds`. */
  async transactionChanges(
    projectId: string,
    dataset: string,
    transactionIds: readonly string[],
    documentIds?: readonly string[],
  ): Promise<LoggedChange[]> {
    const changes: LoggedChange[] = [];
    const only = documentIds && documentIds.length <= IDS_PER_STATEMENT ? documentIds : undefined;
    for (let start = 0; start < transactionIds.length; start += IDS_PER_STATEMENT) {
      const chunk = transactionIds.slice(start, start + IDS_PER_STATEMENT);
      const rows = await this.db.all<HistoryRow>(
        sql`SELECT ${raw(COLUMNS)} FROM document_changes WHERE project_id = ${projectId} AND dataset = ${dataset} AND ${isIn('transaction_id', chunk)}${
          only ? sql` AND ${isIn('document_id', only)}` : raw('')
        }`,
      );
      for (const row of rows) changes.push(toChange(row));
    }
    const wanted = documentIds && !only ? new Set(documentIds) : undefined;
    return wanted ? changes.filter((change) => wanted.has(change.documentId)) : changes;
  }

  /** Where a transaction's rows lie in the log (first and last seq), or undefined if the dataset has none. */
  async transactionSpan(projectId: string, dataset: string, transactionId: string): Promise<{ first: number; last: number } | undefined> {
    const row = await this.db.get<{ first: number | string | null; last: number | string | null }>(
      'SELECT MIN(seq) AS first, MAX(seq) AS last FROM document_changes WHERE project_id = ? AND dataset = ? AND transaction_id = ?',
      [projectId, dataset, transactionId],
    );
    return row?.first === null || row?.first === undefined ? undefined : { first: Number(row.first), last: Number(row.last) };
  }

  /**
   * Each document's last change at or before a point (`maxSeq`, `toTime`), or its last change that
   * left it existing (`existing`): what it was then. Documents without one are left out.
   */
  async lastChanges(
    projectId: string,
    dataset: string,
    documentIds: readonly string[],
    at: { maxSeq?: number; toTime?: string; existing?: boolean },
  ): Promise<LoggedChange[]> {
    const window: ChangeWindow = { reverse: true, ...(at.maxSeq !== undefined ? { maxSeq: at.maxSeq } : {}), ...(at.toTime ? { toTime: at.toTime } : {}) };
    if (!at.existing) return this.documentChanges(projectId, dataset, documentIds, window, 1);
    const found: LoggedChange[] = [];
    for (const documentId of documentIds) {
      const row = await this.db.get<HistoryRow>(
        `SELECT ${COLUMNS} FROM document_changes WHERE project_id = ? AND dataset = ? AND document_id = ? AND result_rev IS NOT NULL
         ORDER BY seq DESC LIMIT 1`,
        [projectId, dataset, documentId],
      );
      if (row) found.push(toChange(row));
    }
    return found;
  }
}
