import type { Dialect, SqlExecutor } from '../sql.ts';
import { heldBackAfter, parseCommitHorizon, positionOf, readAfter, type CommitHorizon, type LogPosition } from '../commit-order.ts';
import { sqlDialect } from '../dialects/dialect.ts';
import { isIn, sql } from '../sql-fragment.ts';

/** One document written (or deleted) by one transaction. */
export interface DocumentChangeRecord {
  projectId: string;
  dataset: string;
  /** The full id: `drafts.x` and `x` are different documents here. */
  documentId: string;
  transactionId: string;
  /** `_rev` before the change; null when the document did not exist. */
  previousRev: string | null;
  /** `_rev` after the change; null when the transaction deleted the document. */
  resultRev: string | null;
  /** A user id, `token:<id>`, or null for the system. */
  actor: string | null;
  createdAt: string;
  /**
   * The mutations the transaction applied to this document, as the client sent them; null (or
   * left out) when the write did not come from mutations (publish, import, ...).
   */
  mutations?: readonly unknown[] | null;
}

/** Where a reader of the change log is: after `seq` of the transaction ordered `order`. */
export type ChangePosition = LogPosition;

/** A change as read back from the log, without its project and dataset. */
export type LoggedChangeFields = Omit<DocumentChangeRecord, 'projectId' | 'dataset' | 'mutations'> & { mutations: readonly unknown[] | null };

export interface StoredDocumentChange extends LoggedChangeFields {
  position: ChangePosition;
  projectId: string;
  dataset: string;
}

/**
 * A change as the log's readers read it: with the length of its mutations rather than the
 * mutations (a document sent whole is megabytes a row, and a batch is hundreds of rows), which
 * `mutationsOf` reads where they are wanted.
 */
export type ChangeFields = Omit<LoggedChangeFields, 'mutations'> & {
  /** The length in bytes of its mutations' JSON text; null when the write did not come from mutations. */
  mutationsBytes: number | null;
};

/** A change as `after` reads it. */
export type FeedChange = ChangeFields & Omit<StoredDocumentChange, keyof LoggedChangeFields>;

/** A row of document_changes as the log's readers select it (CHANGE_COLUMNS). */
export interface ChangeRow {
  document_id: string;
  transaction_id: string;
  previous_rev: string | null;
  result_rev: string | null;
  actor: string | null;
  created_at: string;
  /** PostgreSQL's bigint comes as text. */
  mutations_bytes: number | string | null;
}

/** A row's change, but for its mutations: their length instead (mutationsOf reads them). */
export function changeOf(row: ChangeRow): ChangeFields {
  return {
    documentId: row.document_id,
    transactionId: row.transaction_id,
    previousRev: row.previous_rev,
    resultRev: row.result_rev,
    actor: row.actor,
    createdAt: row.created_at,
    mutationsBytes: row.mutations_bytes === null ? null : Number(row.mutations_bytes),
  };
}

interface FeedRow extends ChangeRow {
  seq: number;
  commit_order: string;
  project_id: string;
  dataset: string;
}

/** What the log's readers select of a row but its mutations: their length (octet_length reads neither engine's text). */
export const CHANGE_COLUMNS = 'document_id, transaction_id, previous_rev, result_rev, actor, created_at, octet_length(mutations) AS mutations_bytes';

const ROWS_PER_STATEMENT = 500;
const COLUMNS = 'project_id, dataset, document_id, transaction_id, previous_rev, result_rev, actor, created_at, mutations';

/** The PostgreSQL channel that wakes readers; one per schema, so test schemas do not wake each other. */
export const CHANGE_CHANNEL_SQL = `'cms_changes_' || substr(md5(current_schema()), 1, 16)`;

interface DialectSql {
  head: string;
  /** The last INSERT of a transaction's changes; on PostgreSQL it also wakes readers (NOTIFY). */
  insertAndSignal(insert: string): string;
}

// Reading in commit order is explained in ../commit-order.ts; a new reader starts at the head.
const DIALECTS: Record<Dialect, DialectSql> = {
  sqlite: {
    head: `SELECT '0' AS commit_order, COALESCE(MAX(seq), 0) AS seq FROM document_changes`,
    // Commits are signalled in process (sqlite/commit-signal.ts).
    insertAndSignal: (insert) => insert,
  },
  postgres: {
    head: 'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS commit_order, 0 AS seq',
    // One round trip. NOTIFY is transactional: delivered at commit, dropped on rollback, and sent
    // once however many times a transaction calls it.
    insertAndSignal: (insert) => `WITH inserted AS (${insert} RETURNING 1) SELECT pg_notify(${CHANGE_CHANNEL_SQL}, '') FROM inserted LIMIT 1`,
  },
};

/**
 * The change log that drives real-time listeners: durable, written with the change, read in
 * commit order. Readers keep their position in memory and start at `head()`. It is kept for good:
 * the transaction history reads it too (transaction-log.ts, migration 011).
 */
export class DocumentChangeRepository {
  private readonly db: SqlExecutor;
  private readonly sql: DialectSql;

  constructor(db: SqlExecutor) {
    this.db = db;
    this.sql = DIALECTS[db.dialect];
  }

  /**
   * Appends the changes of the caller's transaction and, on PostgreSQL, wakes readers when it
   * commits. `between` runs between statements (a long transaction gives other requests turns).
   */
  async appendMany(changes: readonly DocumentChangeRecord[], between?: () => Promise<void>): Promise<void> {
    for (let start = 0; start < changes.length; start += ROWS_PER_STATEMENT) {
      if (start > 0) await between?.();
      const chunk = changes.slice(start, start + ROWS_PER_STATEMENT);
      const insert = `INSERT INTO document_changes (${COLUMNS}) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
      await this.db.write(
        start + ROWS_PER_STATEMENT >= changes.length ? this.sql.insertAndSignal(insert) : insert,
        chunk.flatMap((change) => [
          change.projectId,
          change.dataset,
          change.documentId,
          change.transactionId,
          change.previousRev,
          change.resultRev,
          change.actor,
          change.createdAt,
          change.mutations ? JSON.stringify(change.mutations) : null,
        ]),
      );
    }
  }

  /** The position after every change committed so far: where a new reader starts. */
  async head(): Promise<ChangePosition> {
    const row = await this.db.get<{ commit_order: string; seq: number }>(this.sql.head);
    return { order: String(row?.commit_order ?? '0'), seq: Number(row?.seq ?? 0) };
  }

  /** Which changes have committed so far: a listener subscribing now gets none of them. */
  async horizon(): Promise<CommitHorizon> {
    const row = await this.db.get<{ horizon: string }>(sqlDialect(this.db.dialect).commitHorizon('document_changes'));
    return parseCommitHorizon(row!.horizon);
  }

  /** Committed changes after `position`, in commit order. */
  async after(position: ChangePosition, limit: number): Promise<FeedChange[]> {
    const read = readAfter(this.db.dialect, 'document_changes', `project_id, dataset, ${CHANGE_COLUMNS}`, position, limit);
    const rows = await this.db.all<FeedRow>(read);
    return rows.map((row) => ({ position: positionOf(row), projectId: row.project_id, dataset: row.dataset, ...changeOf(row) }));
  }

  /** The mutations of these rows of a dataset (by seq) that have them, as the JSON text of their array. */
  async mutationsOf(projectId: string, dataset: string, seqs: readonly number[]): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    for (let start = 0; start < seqs.length; start += ROWS_PER_STATEMENT) {
      const chunk = seqs.slice(start, start + ROWS_PER_STATEMENT);
      const rows = await this.db.all<{ seq: number | string; mutations: string }>(
        sql`SELECT seq, mutations FROM document_changes WHERE project_id = ${projectId} AND dataset = ${dataset} AND ${isIn('seq', chunk)} AND mutations IS NOT NULL`,
      );
      for (const row of rows) found.set(Number(row.seq), row.mutations);
    }
    return found;
  }

  /**
   * Whether changes after `position` have committed but `after` cannot return them yet, because
   * a transaction that began before they committed is still running (PostgreSQL). Their commit
   * signal has come and gone, so a reader must look again.
   */
  async heldBack(position: ChangePosition): Promise<boolean> {
    const statement = heldBackAfter(this.db.dialect, 'document_changes', position);
    if (!statement) return false;
    const row = await this.db.get<{ held: boolean }>(statement);
    return row?.held === true;
  }

  /**
   * The number of the revision transaction `rev` wrote to base id `baseId` (drafts and published
   * documents share one history), to its draft or its published form. Newest first: the one wanted
   * is usually among the last few.
   */
  async revisionNumber(projectId: string, dataset: string, baseId: string, isDraft: boolean, rev: string): Promise<number | undefined> {
    const row = await this.db.get<{ revision: number }>(
      `SELECT revision FROM revisions WHERE project_id = ? AND dataset = ? AND document_id = ? AND is_draft = ? AND transaction_id = ?
       ORDER BY revision DESC LIMIT 1`,
      [projectId, dataset, baseId, isDraft ? 1 : 0, rev],
    );
    return row === undefined ? undefined : Number(row.revision);
  }
}
