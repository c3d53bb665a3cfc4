import { binaryJsonColumn, binaryJsonParam, jsonColumn, type SqlExecutor } from '../sql.ts';
import type { StoredDocument } from '../records.ts';
import { indexDialect } from './dialects/dialect.ts';
import { indexEntries } from './entries.ts';
import { encodedNumber } from './values.ts';

const IDS_PER_STATEMENT = 500;
const MAX_ROWS_PER_STATEMENT = 256;
const EXACT_ROWS = 16;
/**
 * From this many new documents in one write (an import's batch), their value and reference rows
 * are expanded from the entries rows by the database, in key order; fewer (a mutation's) are
 * bound like a rewrite's. Measured: binding made single-document writes on SQLite a fifth
 * faster, expanding made imports there 7% faster; PostgreSQL about the same either way.
 */
const EXPAND_FROM = 64;
/**
 * Deferred documents are expanded once this many wait, so that an import of millions holds a
 * bounded list of ids (and the database a bounded sort), in a few large sorted passes.
 */
const DEFER_AT_MOST = 50_000;

/** A document's index rows as document_entries keeps them: what a rewrite compares against. */
interface EntriesRow {
  shape: string;
  /** Indexed path -> encoded value. */
  vals: Record<string, string>;
  refs: string[];
}

const placeholders = (n: number): string[] => new Array<string>(n).fill('?');
const datasetKey = (projectId: string, dataset: string): string => `${projectId}\u0000${dataset}`;

/** Orders [project, dataset, path, value, id] rows by key (UTF-16 order: near enough to the index's for locality). */
function compareValueRows(a: unknown[], b: unknown[]): number {
  for (let i = 2; i < 5; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Keeps the document index (document_values, document_entries, document_shapes,
 * document_references) in step with the documents table. DocumentRepository calls it in the same
 * transaction as every write, so every writer (mutations, publishing, restores, imports) maintains
 * the index without knowing it. A rewrite compares the document's new entries with those its
 * document_entries row recorded and touches only the value and reference rows that changed: a
 * patch of one field writes one value row, not all of them. The value and reference rows of many
 * new documents at once (an import) are expanded from their entries rows by the database itself,
 * in key order, rather than bound row by row (EXPAND_FROM; docs/decisions.md).
 */
export class DocumentIndexWriter {
  private readonly db: SqlExecutor;
  /** Per dataset, the new documents whose value and reference rows wait for `completeDeferred`. */
  private readonly deferred = new Map<string, { projectId: string; dataset: string; ids: Set<string> }>();

  private readonly deferAtMost: number;

  constructor(db: SqlExecutor, { deferAtMost = DEFER_AT_MOST } = {}) {
    this.db = db;
    this.deferAtMost = deferAtMost;
  }

  /**
   * Replaces the index rows of `documents` (the last of a repeated id wins, as in the table).
   * `deferExpansion` leaves the value and reference rows of many new documents to
   * `completeDeferred` (or to when DEFER_AT_MOST wait), which expands them at once, sorted over
   * all of them: an import then adds to each index in key order, as a bulk load does, instead of
   * a batch at a time all over it. Until then the index lacks those rows, so only a writer that
   * reads no index before it completes (an import, a rebuild) defers.
   */
  async replace(projectId: string, dataset: string, documents: readonly StoredDocument[], { deferExpansion = false } = {}): Promise<void> {
    const byId = new Map<string, StoredDocument>();
    for (const document of documents) byId.set(document._id, document);
    const previous = await this.entriesOf(projectId, dataset, [...byId.keys()]);
    const key = datasetKey(projectId, dataset);
    const pending = this.deferred.get(key)?.ids ?? new Set<string>();
    const removedValues: unknown[][] = [];
    const addedValues: unknown[][] = [];
    const removedReferences: unknown[][] = [];
    const addedReferences: unknown[][] = [];
    const rows: unknown[][] = [];
    /** Documents without index rows yet, when their value and reference rows are expanded from their entries by the database. */
    const fresh: string[] = [];
    const expand = byId.size - previous.size >= EXPAND_FROM;
    const shapes = new Map<string, unknown[]>();
    // A number's value row holds the number too, where the database does not compute it (IndexDialect.numbers).
    const writesNumbers = indexDialect(this.db.dialect).numbers === 'written';
    for (const [id, document] of byId) {
      const entries = indexEntries(document);
      const vals = Object.fromEntries(entries.values);
      // A document still pending has its entries row but no value or reference rows to compare with.
      const old = pending.has(id) ? undefined : previous.get(id);
      for (const [path, value] of Object.entries(old?.vals ?? {})) {
        if (vals[path] !== value) removedValues.push([path, value, id]);
      }
      if (pending.has(id)) {
        // Expanded from its entries row as it will be then.
      } else if (!old && expand && deferExpansion) {
        pending.add(id);
      } else if (!old && expand) {
        fresh.push(id);
      } else {
        for (const [path, value] of entries.values) {
          if (old?.vals[path] !== value) addedValues.push(writesNumbers ? [projectId, dataset, path, value, id, encodedNumber(value)] : [projectId, dataset, path, value, id]);
        }
        const refs = new Set(entries.references);
        const oldRefs = new Set(old?.refs);
        for (const target of oldRefs) if (!refs.has(target)) removedReferences.push([target, id]);
        for (const target of refs) if (!oldRefs.has(target)) addedReferences.push([projectId, dataset, target, id]);
      }
      rows.push([projectId, dataset, id, entries.shape.hash, JSON.stringify(vals), JSON.stringify(entries.references)]);
      shapes.set(entries.shape.hash, [projectId, dataset, entries.shape.hash, entries.shape.type, entries.shape.paths]);
    }
    await this.deleteKeys(projectId, dataset, 'document_values', ['path', 'value', 'id'], removedValues);
    await this.deleteKeys(projectId, dataset, 'document_references', ['target_id', 'id'], removedReferences);
    await this.insertRows('INSERT INTO document_shapes (project_id, dataset, shape, type, paths) VALUES', placeholders(5), [...shapes.values()], ' ON CONFLICT (project_id, dataset, shape) DO NOTHING');
    // In key order: consecutive rows land on the same pages of the index (imports add thousands).
    addedValues.sort(compareValueRows);
    await this.insertRows(`INSERT INTO document_values (project_id, dataset, path, value, id${writesNumbers ? ', num' : ''}) VALUES`, placeholders(writesNumbers ? 6 : 5), addedValues);
    await this.insertRows('INSERT INTO document_references (project_id, dataset, target_id, id) VALUES', placeholders(4), addedReferences);
    await this.insertRows(
      'INSERT INTO document_entries (project_id, dataset, id, shape, vals, refs) VALUES',
      ['?', '?', '?', '?', binaryJsonParam(this.db.dialect), '?'],
      rows,
      ' ON CONFLICT (project_id, dataset, id) DO UPDATE SET shape = excluded.shape, vals = excluded.vals, refs = excluded.refs',
    );
    if (fresh.length > 0) await this.expandEntries(projectId, dataset, fresh);
    if (pending.size >= this.deferAtMost) {
      this.deferred.delete(key);
      await this.expandEntries(projectId, dataset, [...pending]);
    } else if (pending.size > 0 && !this.deferred.has(key)) {
      this.deferred.set(key, { projectId, dataset, ids: pending });
    }
  }

  /** Writes the value and reference rows that `replace` deferred; the transaction calls it before it commits. */
  async completeDeferred(): Promise<void> {
    const waiting = [...this.deferred.values()];
    this.deferred.clear();
    for (const { projectId, dataset, ids } of waiting) {
      // Every one of them may have been removed since.
      if (ids.size > 0) await this.expandEntries(projectId, dataset, [...ids]);
    }
  }

  /** Writes the value and reference rows of `ids` from their document_entries rows, in key order. */
  private async expandEntries(projectId: string, dataset: string, ids: readonly string[]): Promise<void> {
    for (const statement of indexDialect(this.db.dialect).expandEntries(projectId, dataset, ids)) await this.db.run(statement);
  }

  /** Removes the index rows of the documents `ids`. */
  async remove(projectId: string, dataset: string, ids: readonly string[]): Promise<void> {
    const pending = this.deferred.get(datasetKey(projectId, dataset))?.ids;
    for (const id of ids) pending?.delete(id);
    const previous = await this.entriesOf(projectId, dataset, ids);
    const values: unknown[][] = [];
    const references: unknown[][] = [];
    for (const [id, old] of previous) {
      for (const [path, value] of Object.entries(old.vals)) values.push([path, value, id]);
      for (const target of old.refs) references.push([target, id]);
    }
    await this.deleteKeys(projectId, dataset, 'document_values', ['path', 'value', 'id'], values);
    await this.deleteKeys(projectId, dataset, 'document_references', ['target_id', 'id'], references);
    await this.deleteKeys(projectId, dataset, 'document_entries', ['id'], [...previous.keys()].map((id) => [id]));
  }

  private async entriesOf(projectId: string, dataset: string, ids: readonly string[]): Promise<Map<string, EntriesRow>> {
    const found = new Map<string, EntriesRow>();
    for (let start = 0; start < ids.length; start += IDS_PER_STATEMENT) {
      const chunk = ids.slice(start, start + IDS_PER_STATEMENT);
      const rows = await this.db.all<{ id: string; shape: string; vals: unknown; refs: unknown }>(
        `SELECT id, shape, ${binaryJsonColumn(this.db.dialect, 'vals')} AS vals, refs FROM document_entries WHERE project_id = ? AND dataset = ? AND id IN (${chunk.map(() => '?').join(', ')})`,
        [projectId, dataset, ...chunk],
      );
      for (const row of rows) found.set(row.id, { shape: row.shape, vals: jsonColumn(row.vals), refs: jsonColumn(row.refs) });
    }
    return found;
  }

  /** Deletes the rows of `table` in the dataset whose `columns` equal one of `keys`. */
  private async deleteKeys(projectId: string, dataset: string, table: string, columns: readonly string[], keys: readonly unknown[][]): Promise<void> {
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    await this.inChunks(keys, (size, chunk) =>
      this.db.run(
        `DELETE FROM ${table} WHERE project_id = ? AND dataset = ? AND (${columns.join(', ')}) IN (VALUES ${new Array<string>(size).fill(tuple).join(', ')})`,
        [projectId, dataset, ...chunk.flat()],
      ),
    );
  }

  /** Multi-row INSERTs; `columns` are the placeholders of a row. */
  private async insertRows(head: string, columns: readonly string[], rows: readonly unknown[][], tail = ''): Promise<void> {
    const tuple = `(${columns.join(', ')})`;
    await this.inChunks(rows, (size, chunk) => this.db.write(`${head} ${new Array<string>(size).fill(tuple).join(', ')}${tail}`, chunk.flat()));
  }

  /**
   * Runs `statement` over `rows` in chunks whose sizes are powers of two, so that however many rows
   * come, a handful of distinct statements is prepared and cached, not one per count; up to
   * EXACT_ROWS rows (a document's values) go in one statement of their own size, a few more
   * statements cached for a statement fewer per write.
   */
  private async inChunks(rows: readonly unknown[][], statement: (size: number, chunk: readonly unknown[][]) => Promise<unknown>): Promise<void> {
    let start = 0;
    while (start < rows.length) {
      const left = rows.length - start;
      let size = left <= EXACT_ROWS ? left : MAX_ROWS_PER_STATEMENT;
      while (size > left) size >>= 1;
      await statement(size, rows.slice(start, start + size));
      start += size;
    }
  }
}
