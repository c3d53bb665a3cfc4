import { binaryJsonColumn, jsonColumn, type Dialect, type SqlExecutor } from '../sql.ts';
import { sqlDialect } from '../dialects/dialect.ts';
import type { RevisionRecord, StoredDocument } from '../records.ts';
import { isIn, raw, sql } from '../sql-fragment.ts';

interface RevisionRow {
  id: string;
  project_id: string;
  dataset: string;
  document_id: string;
  revision: number;
  is_draft: number;
  transaction_id: string;
  content: unknown;
  changed_by: string | null;
  created_at: string;
}

// 10 values a row: well under both engines' limits on bound parameters.
const ROWS_PER_STATEMENT = 500;
const BASE_IDS_IN_STATEMENT = 200;
const COLUMNS = 'id, project_id, dataset, document_id, revision, is_draft, transaction_id, content, changed_by, created_at';
/** The document a revision describes: its draft or its published form. */
const CURRENT_DOCUMENT = `FROM documents d WHERE d.project_id = revisions.project_id AND d.dataset = revisions.dataset
  AND d.id = (CASE WHEN revisions.is_draft = 1 THEN 'drafts.' || revisions.document_id ELSE revisions.document_id END)`;
const CURRENT_CONTENT = `SELECT d.content ${CURRENT_DOCUMENT}`;
/**
 * What reading a revision's content and parsing it takes, in bytes (the larger of its text's length
 * and its parse), read without reading it (the document's columns alone are in the subquery's scope).
 */
const textBytes = (dialect: Dialect) => `COALESCE(${sqlDialect(dialect).revisionParsedBytes}, (SELECT ${sqlDialect(dialect).documentParsedBytes} ${CURRENT_DOCUMENT}))`;
/**
 * A revision with its content, taken from the document while the revision is its current state.
 * Copies of a document's content are binary JSON like it (SQLite: older revisions hold text).
 */
const selectColumns = (dialect: Dialect) => COLUMNS.replace('content', `${binaryJsonColumn(dialect, `COALESCE(content, (${CURRENT_CONTENT}))`)} AS content`);

function toRecord(row: RevisionRow): RevisionRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    dataset: row.dataset,
    documentId: row.document_id,
    revision: Number(row.revision),
    isDraft: Number(row.is_draft) === 1,
    transactionId: row.transaction_id,
    content: jsonColumn<StoredDocument>(row.content),
    changedBy: row.changed_by,
    createdAt: row.created_at,
  };
}

export type NewRevision = Omit<RevisionRecord, 'content'>;
export type UnnumberedRevision = Omit<NewRevision, 'revision'>;

/** Identifies the revision a transaction wrote to one form (draft or published) of a base id. */
export function revisionKey(baseId: string, isDraft: boolean, transactionId: string): string {
  return `${isDraft ? 'd' : 'p'}\u0000${baseId}\u0000${transactionId}`;
}

export type RevisionSummary = Pick<RevisionRecord, 'id' | 'revision' | 'isDraft' | 'changedBy' | 'createdAt'>;

/** Full snapshots of every change, numbered per base id. */
export class RevisionRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  /**
   * Inserts a base id's next revision, numbered after its latest by the statement itself (no
   * round trip to read the number first); call with the document locked. Like `insertMany`, its
   * content stays NULL while the document holds it.
   */
  async insertNext(revision: UnnumberedRevision): Promise<void> {
    const { projectId, dataset, documentId } = revision;
    await this.db.write(
      `INSERT INTO revisions (${COLUMNS}) VALUES (?, ?, ?, ?,
         (SELECT COALESCE(MAX(revision), 0) + 1 FROM revisions WHERE project_id = ? AND dataset = ? AND document_id = ?),
         ?, ?, ?, ?, ?)`,
      [
        revision.id,
        projectId,
        dataset,
        documentId,
        projectId,
        dataset,
        documentId,
        revision.isDraft ? 1 : 0,
        revision.transactionId,
        null,
        revision.changedBy,
        revision.createdAt,
      ],
    );
  }

  /**
   * Whether no earlier transaction of the dataset wrote (or deleted) anything under this id. The
   * id is locked until the caller's transaction ends, so two transactions choosing it at once are
   * told apart.
   */
  async claimTransactionId(projectId: string, dataset: string, transactionId: string): Promise<boolean> {
    await this.db.lock([`tx:${projectId}:${dataset}:${transactionId}`]);
    // The change log has a row for every transaction that wrote anything, deletions included.
    const row = await this.db.get('SELECT 1 AS found FROM document_changes WHERE project_id = ? AND dataset = ? AND transaction_id = ? LIMIT 1', [
      projectId,
      dataset,
      transactionId,
    ]);
    return row === undefined;
  }

  /** The latest revision number of each base id that has one; call with the documents locked. */
  async latestNumbers(projectId: string, dataset: string, documentIds: readonly string[]): Promise<Map<string, number>> {
    const latest = new Map<string, number>();
    for (let start = 0; start < documentIds.length; start += ROWS_PER_STATEMENT) {
      const chunk = documentIds.slice(start, start + ROWS_PER_STATEMENT);
      const rows = await this.db.all<{ document_id: string; n: number }>(
        `SELECT document_id, MAX(revision) AS n FROM revisions
         WHERE project_id = ? AND dataset = ? AND document_id IN (${chunk.map(() => '?').join(', ')}) GROUP BY document_id`,
        [projectId, dataset, ...chunk],
      );
      for (const row of rows) latest.set(row.document_id, Number(row.n));
    }
    return latest;
  }

  /**
   * Inserts revisions of documents just written: their content is the documents' current state,
   * so it is not stored twice (content stays NULL until `preserveCurrent` copies it in).
   */
  async insertMany(revisions: readonly NewRevision[]): Promise<void> {
    for (let start = 0; start < revisions.length; start += ROWS_PER_STATEMENT) {
      const chunk = revisions.slice(start, start + ROWS_PER_STATEMENT);
      await this.db.write(
        `INSERT INTO revisions (${COLUMNS}) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((revision) => [
          revision.id,
          revision.projectId,
          revision.dataset,
          revision.documentId,
          revision.revision,
          revision.isDraft ? 1 : 0,
          revision.transactionId,
          null,
          revision.changedBy,
          revision.createdAt,
        ]),
      );
    }
  }

  /**
   * Copies the current content of these base ids' documents (draft and published form) into the
   * revisions that still point at it. Call before those documents are overwritten or deleted.
   */
  async preserveCurrent(projectId: string, dataset: string, documentIds: readonly string[]): Promise<void> {
    for (let start = 0; start < documentIds.length; start += ROWS_PER_STATEMENT) {
      const chunk = documentIds.slice(start, start + ROWS_PER_STATEMENT);
      await this.db.run(
        `UPDATE revisions SET ${sqlDialect(this.db.dialect).copyCurrentContent(CURRENT_DOCUMENT)}
         WHERE project_id = ? AND dataset = ? AND content IS NULL AND document_id IN (${chunk.map(() => '?').join(', ')})`,
        [projectId, dataset, ...chunk],
      );
    }
  }

  /** Newest first. */
  async list(projectId: string, dataset: string, documentId: string, limit: number, offset: number): Promise<RevisionSummary[]> {
    const rows = await this.db.all<Omit<RevisionRow, 'content' | 'project_id' | 'dataset' | 'document_id' | 'transaction_id'>>(
      `SELECT id, revision, is_draft, changed_by, created_at FROM revisions
       WHERE project_id = ? AND dataset = ? AND document_id = ? ORDER BY revision DESC LIMIT ? OFFSET ?`,
      [projectId, dataset, documentId, limit, offset],
    );
    return rows.map((row) => ({
      id: row.id,
      revision: Number(row.revision),
      isDraft: Number(row.is_draft) === 1,
      changedBy: row.changed_by,
      createdAt: row.created_at,
    }));
  }

  /** A revision's content with the length in bytes of its text (what keeping it costs). */
  async contentWithTextLength(projectId: string, dataset: string, documentId: string, revision: number): Promise<{ content: StoredDocument; bytes: number } | undefined> {
    const row = await this.db.get<{ content: unknown; bytes: number | string | null }>(
      `SELECT ${binaryJsonColumn(this.db.dialect, `COALESCE(content, (${CURRENT_CONTENT}))`)} AS content, ${textBytes(this.db.dialect)} AS bytes
       FROM revisions WHERE project_id = ? AND dataset = ? AND document_id = ? AND revision = ?`,
      [projectId, dataset, documentId, revision],
    );
    return row && row.content !== null ? { content: jsonColumn<StoredDocument>(row.content), bytes: Number(row.bytes ?? 0) } : undefined;
  }

  async get(projectId: string, dataset: string, documentId: string, revision: number): Promise<RevisionRecord | undefined> {
    const row = await this.db.get<RevisionRow>(
      `SELECT ${selectColumns(this.db.dialect)} FROM revisions WHERE project_id = ? AND dataset = ? AND document_id = ? AND revision = ?`,
      [projectId, dataset, documentId, revision],
    );
    return row && toRecord(row);
  }

  /**
   * The contents of the revisions that these transactions wrote to these base ids (the draft and
   * the published form), keyed by `revisionKey`: the versions a history shows, in one statement.
   */
  contents(projectId: string, dataset: string, baseIds: readonly string[], transactionIds: readonly string[]): Promise<Map<string, StoredDocument>> {
    const content = binaryJsonColumn(this.db.dialect, `COALESCE(content, (${CURRENT_CONTENT}))`);
    return this.versions(projectId, dataset, baseIds, transactionIds, content, (value) => jsonColumn<StoredDocument>(value));
  }

  /**
   * The lengths in bytes of the same versions' JSON text, read without reading them: a history
   * reads its versions in steps cut by them.
   */
  textLengths(projectId: string, dataset: string, baseIds: readonly string[], transactionIds: readonly string[]): Promise<Map<string, number>> {
    return this.versions(projectId, dataset, baseIds, transactionIds, textBytes(this.db.dialect), (value) => Number(value ?? 0));
  }

  /** `column` of the revisions these transactions wrote to these base ids, by `revisionKey`. */
  private async versions<T>(
    projectId: string,
    dataset: string,
    baseIds: readonly string[],
    transactionIds: readonly string[],
    column: string,
    read: (value: unknown) => T,
  ): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    if (baseIds.length === 0) return found;
    // A few base ids narrow the statement; many (a transaction that wrote thousands) are matched here.
    const named = baseIds.length <= BASE_IDS_IN_STATEMENT ? baseIds : undefined;
    const wanted = named ? undefined : new Set(baseIds);
    for (let start = 0; start < transactionIds.length; start += ROWS_PER_STATEMENT) {
      const chunk = transactionIds.slice(start, start + ROWS_PER_STATEMENT);
      const rows = await this.db.all<{ document_id: string; is_draft: number; transaction_id: string; value: unknown }>(
        sql`SELECT document_id, is_draft, transaction_id, ${raw(column)} AS value FROM revisions
         WHERE project_id = ${projectId} AND dataset = ${dataset} AND ${isIn('transaction_id', chunk)}${named ? sql` AND ${isIn('document_id', named)}` : raw('')}`,
      );
      for (const row of rows) {
        if (wanted && !wanted.has(row.document_id)) continue;
        found.set(revisionKey(row.document_id, Number(row.is_draft) === 1, row.transaction_id), read(row.value));
      }
    }
    return found;
  }

  async exists(projectId: string, dataset: string, documentId: string): Promise<boolean> {
    const row = await this.db.get('SELECT 1 AS found FROM revisions WHERE project_id = ? AND dataset = ? AND document_id = ? LIMIT 1', [
      projectId,
      dataset,
      documentId,
    ]);
    return row !== undefined;
  }
}
