import type { PlannerReads } from '../../store.ts';
import type { DocumentQuery, DocumentQueryResult } from '../document-query.ts';
import type { ShapeInfo } from '../entries.ts';
import type { AskedQuery } from '../reader.ts';
import type { ContentLimit } from '../../repos/documents.ts';

type Waiting<T> = { resolve: (value: T) => void; reject: (error: unknown) => void };

/** Requests by key until taken: each key fetched once, however many wait on it. */
class Requests<K, V> {
  private waiting = new Map<K, Waiting<V>[]>();

  ask(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
    });
  }

  /** The requests so far, to be answered by `fetch` (a key it does not answer: null). */
  take(): (fetch: (keys: K[]) => Promise<ReadonlyMap<K, V>>) => Promise<void> {
    const waiting = this.waiting;
    this.waiting = new Map();
    return async (fetch) => {
      if (waiting.size === 0) return;
      try {
        const found = await fetch([...waiting.keys()]);
        for (const [key, list] of waiting) for (const w of list) w.resolve(found.get(key) ?? (null as V));
      } catch (error) {
        for (const list of waiting.values()) for (const w of list) w.reject(error);
      }
    };
  }
}

/**
 * Collects the queries that the scans of one round ask at the same moment and sends them together
 * (the store runs a thousand subqueries per document as one statement on PostgreSQL), and the
 * documents fetched whole likewise: one query per batch, however many scans wait on it.
 */
export class IndexBatcher {
  private readonly reads: PlannerReads;
  private readonly projectId: string;
  private readonly dataset: string;
  private readonly queries = new Requests<AskedQuery, DocumentQueryResult>();
  private readonly contents = new Requests<string, unknown>();
  private readonly shapes = new Requests<string, string | null>();
  private flushing = false;
  /** What the documents of one batch may take (DocumentRepository.getMany), where a limit applies. */
  private readonly contentLimit: ContentLimit | undefined;

  constructor(reads: PlannerReads, projectId: string, dataset: string, contentLimit?: ContentLimit) {
    this.reads = reads;
    this.projectId = projectId;
    this.dataset = dataset;
    this.contentLimit = contentLimit;
  }

  /** A query, with the dataset's shapes where the caller read them (DocumentIndexReader.query). */
  query(query: DocumentQuery, shapes: readonly ShapeInfo[] | null = null): Promise<DocumentQueryResult> {
    return this.scheduled(this.queries.ask({ query, shapes }));
  }

  /** The stored document `id` (null when there is none). */
  content(id: string): Promise<unknown> {
    return this.scheduled(this.contents.ask(id));
  }

  /** The shape hash of document `id` (null when there is none). */
  shape(id: string): Promise<string | null> {
    return this.scheduled(this.shapes.ask(id));
  }

  private scheduled<T>(answer: Promise<T>): Promise<T> {
    if (!this.flushing) {
      this.flushing = true;
      // After every scan of the round has asked (they ask synchronously up to their first await).
      setImmediate(() => void this.flush());
    }
    return answer;
  }

  private async flush(): Promise<void> {
    this.flushing = false;
    const { projectId, dataset, reads } = this;
    const [shapes, queries, contents] = [this.shapes.take(), this.queries.take(), this.contents.take()];
    await shapes((ids) => reads.documentIndex.shapesOf(projectId, dataset, ids));
    await queries(async (asked) => {
      const results = await reads.documentIndex.queryMany(projectId, dataset, asked);
      return new Map(asked.map((query, i) => [query, results[i]!]));
    });
    await contents(async (ids) => new Map((await reads.documents.getMany(projectId, dataset, ids, this.contentLimit)).map((document) => [document._id, document])));
  }
}
