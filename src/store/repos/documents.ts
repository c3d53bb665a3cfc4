import { sqlDialect } from '../dialects/dialect.ts';
import { leadingWithin, PAGE_TEXT_BYTES } from '../stored-size-pages.ts';
import { binaryJsonColumn, binaryJsonParam, binaryJsonText, jsonColumn, type SqlExecutor } from '../sql.ts';
import type { StoredDocument } from '../records.ts';
import { jsonText } from '../serialize.ts';
import { heapBytesOf } from '../../json/json-weight.ts';
import { DocumentIndexWriter } from '../document-index/index-writer.ts';

const DRAFT_PREFIX = 'drafts.';
const IDS_PER_QUERY = 500;
// 9 values a row: well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const ROWS_PER_INSERT = 500;

/** What documents read at once may take, in bytes of their stored sizes, and what exceeding it does (throws). */
export interface ContentLimit {
  bytes: number;
  exceeded(held: string): never;
}

/** The current documents of every dataset. */
export class DocumentRepository {
  private readonly db: SqlExecutor;
  /** The query planner's indexes, written with every document (src/store/document-index). */
  private readonly index: DocumentIndexWriter;

  /** Told how many documents each write wrote (the store's planner statistics count them). */
  private readonly onWritten: (documents: number) => void;

  /** Bound to a store transaction, which completes deferred index rows before it commits (putMany's deferIndex). */
  private readonly inTransaction: boolean;

  constructor(db: SqlExecutor, onWritten: (documents: number) => void = () => undefined, { inTransaction = false } = {}) {
    this.db = db;
    this.index = new DocumentIndexWriter(db);
    this.onWritten = onWritten;
    this.inTransaction = inTransaction;
  }

  /**
   * Serializes transactions that touch the same documents (no-op on SQLite, whose writers are
   * serialized already). A lock covers a bucket of documents (DOCUMENT_LOCK_BUCKETS per dataset),
   * so that an import can hold all of its dataset's (lockDataset) however many documents it writes;
   * two writers of different documents wait for each other only when their buckets meet.
   */
  async lock(projectId: string, dataset: string, baseIds: readonly string[]): Promise<void> {
    await this.db.lock(baseIds.map((id) => documentLockKey(projectId, dataset, bucketOf(id))));
  }

  /**
   * Holds every document of the dataset to this transaction until it ends: writers of its
   * documents (lock) wait, and it waits for those under way. For an import, which may write
   * millions of documents (a lock for each would not fit in PostgreSQL's lock table) and must not
   * read documents and their index rows that a concurrent writer then changes under it.
   */
  async lockDataset(projectId: string, dataset: string): Promise<void> {
    await this.db.lock(Array.from({ length: DOCUMENT_LOCK_BUCKETS }, (_, bucket) => documentLockKey(projectId, dataset, bucket)));
  }

  async get(projectId: string, dataset: string, id: string): Promise<StoredDocument | undefined> {
    const row = await this.db.get<{ content: unknown }>(
      `SELECT ${binaryJsonColumn(this.db.dialect, 'content')} AS content FROM documents WHERE project_id = ? AND dataset = ? AND id = ?`,
      [projectId, dataset, id],
    );
    return row && jsonColumn<StoredDocument>(row.content);
  }

  /**
   * A document with what reading it took in bytes: the larger of its text's length and its parse
   * (stored beside it; counted here for documents written before migration 17).
   */
  async getWithTextLength(projectId: string, dataset: string, id: string): Promise<{ document: StoredDocument; bytes: number } | undefined> {
    const row = await this.db.get<{ content: unknown; bytes: number | string; heap_bytes: number | string | null }>(
      `SELECT ${binaryJsonColumn(this.db.dialect, 'content')} AS content, ${sqlDialect(this.db.dialect).documentTextBytes} AS bytes, heap_bytes FROM documents WHERE project_id = ? AND dataset = ? AND id = ?`,
      [projectId, dataset, id],
    );
    if (!row) return undefined;
    const document = jsonColumn<StoredDocument>(row.content);
    return { document, bytes: Math.max(Number(row.bytes), row.heap_bytes === null ? heapBytesOf(document) : Number(row.heap_bytes)) };
  }

  /** The length in bytes of each existing document's text, by id, read without reading the documents. */
  private async textLengths(projectId: string, dataset: string, ids: readonly string[]): Promise<Map<string, number>> {
    const lengths = new Map<string, number>();
    const unique = [...new Set(ids)];
    for (let start = 0; start < unique.length; start += IDS_PER_QUERY) {
      const chunk = unique.slice(start, start + IDS_PER_QUERY);
      const rows = await this.db.all<{ id: string; bytes: number }>(
        `SELECT id, ${sqlDialect(this.db.dialect).documentTextBytes} AS bytes FROM documents WHERE ${idsIn(chunk)}`,
        [projectId, dataset, ...chunk],
      );
      for (const row of rows) lengths.set(row.id, Number(row.bytes));
    }
    return lengths;
  }

  /**
   * Documents by id as their stored JSON text, in the order asked (an id asked twice comes twice),
   * read a page at a time: a page holds at most PAGE_TEXT_BYTES of them, by the lengths read
   * first. `missing`: the ids that named no document then; `texts` yields [id, text] pairs, and
   * leaves out a document deleted meanwhile.
   */
  async textsInOrder(projectId: string, dataset: string, ids: readonly string[]): Promise<{ missing: string[]; texts: AsyncGenerator<[string, string]> }> {
    const lengths = await this.textLengths(projectId, dataset, ids);
    const present = ids.filter((id) => lengths.has(id)).map((id) => ({ id, bytes: lengths.get(id)! }));
    const db = this.db;
    async function* texts(): AsyncGenerator<[string, string]> {
      for (let start = 0; start < present.length; ) {
        const page = present.slice(start, start + Math.min(IDS_PER_QUERY, present.length - start));
        const kept = page.slice(0, leadingWithin(page, PAGE_TEXT_BYTES));
        start += kept.length;
        const wanted = [...new Set(kept.map((entry) => entry.id))];
        const rows = await db.all<{ id: string; content: string }>(`SELECT id, ${binaryJsonText(db.dialect, 'content')} AS content FROM documents WHERE ${idsIn(wanted)}`, [
          projectId,
          dataset,
          ...wanted,
        ]);
        const byId = new Map(rows.map((row) => [row.id, row.content]));
        for (const { id } of kept) {
          const text = byId.get(id);
          if (text !== undefined) yield [id, text];
        }
      }
    }
    return { missing: ids.filter((id) => !lengths.has(id)), texts: texts() };
  }

  /**
   * The documents of `ids` that exist. `within`: what they may take together, as their stored
   * sizes say (the larger of text and parse), and what exceeding it does (throws); the text of
   * each is parsed only once it fits: ten referenced documents of 14 MB once parsed, 6 MB of text,
   * ended a server with a 128 MB heap when parsed at once.
   */
  async getMany(projectId: string, dataset: string, ids: readonly string[], within?: ContentLimit): Promise<StoredDocument[]> {
    const found: StoredDocument[] = [];
    let bytes = 0;
    for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
      const chunk = ids.slice(start, start + IDS_PER_QUERY);
      const rows = await this.db.all<{ content: string; bytes: number | string }>(
        `SELECT ${binaryJsonText(this.db.dialect, 'content')} AS content, ${sqlDialect(this.db.dialect).documentParsedBytes} AS bytes FROM documents WHERE ${idsIn(chunk)}`,
        [projectId, dataset, ...chunk],
        { planOnce: true },
      );
      for (const row of rows) {
        bytes += Math.max(row.content.length, Number(row.bytes));
        if (within && bytes > within.bytes) within.exceeded(`${bytes} or more bytes of documents`);
        found.push(JSON.parse(row.content) as StoredDocument);
      }
    }
    return found;
  }

  /** Inserts or replaces a document; `heapBytes`: what it takes parsed, when the caller has counted it (heapBytesOf). */
  async put(projectId: string, dataset: string, document: StoredDocument, heapBytes?: number): Promise<void> {
    await this.putMany(projectId, dataset, [document], heapBytes === undefined ? {} : { heapBytes: new Map([[document._id, heapBytes]]) });
  }

  /**
   * Inserts or replaces documents with one statement per chunk (imports write thousands at once).
   * `deferIndex`: the index rows of new documents are written when the transaction completes,
   * sorted over all of its writes (DocumentIndexWriter.replace; for a writer that reads no index
   * meanwhile). Outside a transaction nothing would complete them: they are written at once.
   * `heapBytes`: what documents take parsed, by id, where the caller has counted it (else counted here).
   */
  async putMany(
    projectId: string,
    dataset: string,
    documents: readonly StoredDocument[],
    { deferIndex = false, heapBytes }: { deferIndex?: boolean; heapBytes?: ReadonlyMap<string, number> } = {},
  ): Promise<void> {
    const row = `(?, ?, ?, ?, ?, ?, ?, ?, ${binaryJsonParam(this.db.dialect)})`;
    for (let start = 0; start < documents.length; start += ROWS_PER_INSERT) {
      const chunk = documents.slice(start, start + ROWS_PER_INSERT);
      await this.db.write(
        `INSERT INTO documents (project_id, dataset, id, type, rev, created_at, updated_at, heap_bytes, content)
         VALUES ${chunk.map(() => row).join(', ')}
         ON CONFLICT (project_id, dataset, id) DO UPDATE SET
           type = excluded.type, rev = excluded.rev, created_at = excluded.created_at,
           updated_at = excluded.updated_at, heap_bytes = excluded.heap_bytes, content = excluded.content`,
        chunk.flatMap((document) => [
          projectId,
          dataset,
          document._id,
          document._type,
          document._rev,
          document._createdAt,
          document._updatedAt,
          heapBytes?.get(document._id) ?? heapBytesOf(document),
          jsonText(document),
        ]),
      );
      await this.index.replace(projectId, dataset, chunk, { deferExpansion: deferIndex && this.inTransaction });
    }
    this.onWritten(documents.length);
  }

  /** Writes the index rows `putMany` deferred; a transaction calls it before it commits. */
  async completeIndex(): Promise<void> {
    await this.index.completeDeferred();
  }

  /** The ids among `ids` that exist, with their _createdAt and their _rev (read before they are overwritten). */
  async existing(projectId: string, dataset: string, ids: readonly string[]): Promise<Map<string, { createdAt: string; rev: string }>> {
    const found = new Map<string, { createdAt: string; rev: string }>();
    for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
      const chunk = ids.slice(start, start + IDS_PER_QUERY);
      const rows = await this.db.all<{ id: string; created_at: string; rev: string }>(
        `SELECT id, created_at, rev FROM documents WHERE ${idsIn(chunk)}`,
        [projectId, dataset, ...chunk],
      );
      for (const row of rows) found.set(row.id, { createdAt: row.created_at, rev: row.rev });
    }
    return found;
  }

  /**
   * Documents as their stored JSON text, in id order, a page at a time (exports stream them
   * without parsing and re-serializing). `types` limits to those types; `drafts: false` leaves
   * drafts out. A page holds at most `pageSize` documents and, past its first, at most
   * PAGE_TEXT_BYTES of them: a page of 2,000 documents of 200 KB each would be
   * 400 MB of text, and two pages took the server past its heap limit.
   */
  async *scanText(
    projectId: string,
    dataset: string,
    filter: { types?: readonly string[]; drafts?: boolean } = {},
    // Fewer, larger pages: on PostgreSQL each page is a round trip (docs/decisions.md); two pages of ~4 KB documents stay near 20 MB.
    pageSize = 2000,
  ): AsyncGenerator<string> {
    const dialect = sqlDialect(this.db.dialect);
    const types = filter.types ?? [];
    const where = `project_id = ? AND dataset = ? AND id > ? ${types.length > 0 ? `AND type IN (${types.map(() => '?').join(', ')})` : ''} ${
      filter.drafts === false ? `AND substr(id, 1, ${DRAFT_PREFIX.length}) <> ?` : ''
    }`;
    const params = (after: string) => [projectId, dataset, after, ...types, ...(filter.drafts === false ? [DRAFT_PREFIX] : [])];
    // A page's extent comes from the documents' stored sizes, read without their contents. Where the
    // database is a round trip away, in the statement that reads the contents: a running sum over
    // the candidates, only the rows within it converted to text (a statement of sizes first made
    // PostgreSQL's exports a third slower). On the thread, sizes first, then the contents.
    const inOneStatement = async (after: string): Promise<{ texts: string[]; last: string | undefined; more: boolean }> => {
      const rows = await this.db.all<{ id: string; content: string; candidates: number }>(
        `SELECT id, ${binaryJsonText(this.db.dialect, 'content')} AS content, candidates FROM (
           SELECT id, content, own, SUM(own) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS upto, COUNT(*) OVER () AS candidates
           FROM (SELECT id, content, ${dialect.documentTextBytes} AS own FROM documents WHERE ${where} ORDER BY id LIMIT ?) page_rows
         ) sized WHERE upto - own < ? ORDER BY id`,
        [...params(after), pageSize, PAGE_TEXT_BYTES],
      );
      const candidates = Number(rows[0]?.candidates ?? 0);
      return { texts: rows.map((row) => row.content), last: rows[rows.length - 1]?.id, more: rows.length < candidates || candidates === pageSize };
    };
    const afterSizes = async (after: string): Promise<{ texts: string[]; last: string | undefined; more: boolean }> => {
      const sizes = await this.db.all<{ id: string; bytes: number }>(
        `SELECT id, ${dialect.documentTextBytes} AS bytes FROM documents WHERE ${where} ORDER BY id LIMIT ?`,
        [...params(after), pageSize],
      );
      const kept = leadingWithin(sizes, PAGE_TEXT_BYTES);
      const last = kept === 0 ? undefined : sizes[kept - 1]!.id;
      const rows =
        last === undefined
          ? []
          : await this.db.all<{ content: string }>(`SELECT ${binaryJsonText(this.db.dialect, 'content')} AS content FROM documents WHERE ${where} AND id <= ? ORDER BY id`, [...params(after), last]);
      return { texts: rows.map((row) => row.content), last, more: kept < sizes.length || sizes.length === pageSize };
    };
    const page = dialect.readsOffThread ? inOneStatement : afterSizes;
    // The next page is read while the consumer takes this one: on PostgreSQL the server produces
    // it (jsonb to text is most of an export's cost there) while we write; memory holds two pages.
    let next = page('');
    try {
      for (;;) {
        const { texts, last, more } = await next;
        if (more && last !== undefined) next = page(last);
        yield* texts;
        if (!more || last === undefined) return;
      }
    } finally {
      // A consumer that stops early leaves a page in flight: its failure is nobody's to report.
      next.catch(() => undefined);
    }
  }

  async delete(projectId: string, dataset: string, id: string): Promise<boolean> {
    await this.index.remove(projectId, dataset, [id]);
    const deleted = (await this.db.run('DELETE FROM documents WHERE project_id = ? AND dataset = ? AND id = ?', [projectId, dataset, id])) === 1;
    this.onWritten(deleted ? 1 : 0);
    return deleted;
  }

  async count(projectId: string, dataset: string): Promise<number> {
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM documents WHERE project_id = ? AND dataset = ?', [projectId, dataset]);
    return Number(row?.n ?? 0);
  }

  /** Published documents (ids without the drafts. prefix) per type. */
  async countPublishedByType(projectId: string, dataset: string): Promise<Record<string, number>> {
    const rows = await this.db.all<{ type: string; n: number }>(
      `SELECT type, COUNT(*) AS n FROM documents
       WHERE project_id = ? AND dataset = ? AND substr(id, 1, ${DRAFT_PREFIX.length}) <> ?
       GROUP BY type ORDER BY type`,
      [projectId, dataset, DRAFT_PREFIX],
    );
    return Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]));
  }

}

/** The condition of documents of a project's dataset with these ids (bound after the project and dataset). */
function idsIn(ids: readonly string[]): string {
  return `project_id = ? AND dataset = ? AND id IN (${ids.map(() => '?').join(', ')})`;
}

/** Locks per dataset: an import holds them all, and a write the ones of its documents. */
const DOCUMENT_LOCK_BUCKETS = 1024;

function documentLockKey(projectId: string, dataset: string, bucket: number): string {
  return `docs:${projectId}:${dataset}:${bucket}`;
}

/** A document id's bucket: FNV-1a over its UTF-16 code units, the same in every process. */
function bucketOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % DOCUMENT_LOCK_BUCKETS;
}
