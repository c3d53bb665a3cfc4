import type { PlannerReads } from '../../store.ts';
import type { DocumentQuery, DocumentQueryResult } from '../document-query.ts';
import type { ShapeInfo } from '../entries.ts';
import type { AskedQuery } from '../reader.ts';

type Waiting<T> = { resolve: (value: T) => void; reject: (error: unknown) => void };

/**
 * Collects the queries that the scans of one round ask at the same moment and sends them together
 * (the store runs a thousand subqueries per document as one statement on PostgreSQL), and the
 * documents fetched whole likewise: one query per batch, however many scans wait on it.
 */
export class IndexBatcher {
  private readonly reads: PlannerReads;
  private readonly projectId: string;
  private readonly dataset: string;
  private queries: (AskedQuery & { waiting: Waiting<DocumentQueryResult> })[] = [];
  private contents = new Map<string, Waiting<unknown>[]>();
  private shapes = new Map<string, Waiting<string | null>[]>();
  private scheduled = false;

  constructor(reads: PlannerReads, projectId: string, dataset: string) {
    this.reads = reads;
    this.projectId = projectId;
    this.dataset = dataset;
  }

  /** A query, with the dataset's shapes where the caller read them (DocumentIndexReader.query). */
  query(query: DocumentQuery, shapes: readonly ShapeInfo[] | null = null): Promise<DocumentQueryResult> {
    return new Promise((resolve, reject) => {
      this.queries.push({ query, shapes, waiting: { resolve, reject } });
      this.schedule();
    });
  }

  /** The stored document `id` (null when there is none). */
  content(id: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const list = this.contents.get(id);
      if (list) list.push({ resolve, reject });
      else this.contents.set(id, [{ resolve, reject }]);
      this.schedule();
    });
  }

  /** The shape hash of document `id` (null when there is none). */
  shape(id: string): Promise<string | null> {
    return new Promise((resolve, reject) => {
      const list = this.shapes.get(id);
      if (list) list.push({ resolve, reject });
      else this.shapes.set(id, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After every scan of the round has asked (they ask synchronously up to their first await).
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const queries = this.queries;
    const contents = this.contents;
    const shapes = this.shapes;
    this.queries = [];
    this.contents = new Map();
    this.shapes = new Map();
    if (shapes.size > 0) {
      try {
        const found = await this.reads.documentIndex.shapesOf(this.projectId, this.dataset, [...shapes.keys()]);
        for (const [id, waiting] of shapes) for (const w of waiting) w.resolve(found.get(id) ?? null);
      } catch (error) {
        for (const waiting of shapes.values()) for (const w of waiting) w.reject(error);
      }
    }
    if (queries.length > 0) {
      try {
        const results = await this.reads.documentIndex.queryMany(this.projectId, this.dataset, queries);
        queries.forEach((q, i) => q.waiting.resolve(results[i]!));
      } catch (error) {
        for (const q of queries) q.waiting.reject(error);
      }
    }
    if (contents.size > 0) {
      try {
        const found = new Map<string, unknown>();
        for (const document of await this.reads.documents.getMany(this.projectId, this.dataset, [...contents.keys()])) {
          found.set(document._id, document);
        }
        for (const [id, waiting] of contents) for (const w of waiting) w.resolve(found.get(id) ?? null);
      } catch (error) {
        for (const waiting of contents.values()) for (const w of waiting) w.reject(error);
      }
    }
  }
}
