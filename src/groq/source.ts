// Where documents come from. The evaluator never holds a dataset itself: it asks a DocumentSource
// for "the documents of `*`" and for documents by id (for `->`), so that a database-backed source
// can replace the in-memory one without touching the evaluator.
//
// The calls are synchronous, which keeps the evaluator fast on in-memory data and on SQLite. A
// source that must fetch asynchronously (PostgreSQL, a remote store) answers PENDING and records
// what was asked; the evaluator then finishes the run with empty answers, awaits `load()`, and
// runs the query again, until a run completes without PENDING. Each round fetches in one batch
// everything the previous round discovered it needs (all dereferenced ids of a page at once), so
// the number of rounds is the depth of the query's data dependencies, not the number of lookups.
//
// Pushdown: the query planner (planner/) turns `*` with the filter, order(), slice and count()
// around it into one ScanRequest, which a source that has `scan()` answers from its indexes. The
// request's constraints are the filter's conjuncts with their values bound (`_type == "post"`,
// `references("a1")`, `views > 10`); the source says which it applied exactly and the evaluator
// evaluates the rest on the candidates, so pushdown only narrows and never changes a result. A
// source that applies all of them may also order, window and count. Sources without `scan()` get
// `documents()` and the evaluator does everything.
import { firstValuesOf, MemoryIndexes, numberSummaryOf, pagesOf, scanMemory, valuePagesOf, type MemoryScanOptions } from './planner/memory-scan.ts';
import type { FieldPath, NumberSummary, ScanAnswer, ScanRequest } from './planner/scan-plan.ts';

/** Returned by a source that has recorded the request and will fetch it in `load()`. */
export const PENDING: unique symbol = Symbol('groq.pending');
export type Pending = typeof PENDING;

export interface DocumentSource {
  /** The documents of `*`, in dataset order. */
  documents(): readonly unknown[] | Pending;
  /** Answers one evaluation of a planned scan (see above); optional. */
  scan?(request: ScanRequest): ScanAnswer | Pending;
  /**
   * Answers a scan request (never windowed) a page of candidates at a time, in dataset order, for
   * a query streamed over it (planner/stream.ts). A source may drop what it cached for earlier
   * pages (subqueries and dereferences of their documents) when it moves to the next.
   */
  pages?(request: ScanRequest): AsyncIterable<ScanAnswer>;
  /**
   * For an aggregate of one path's values (`math::sum(*[_type == "post"].views)`) whose request is
   * unordered: the values at `path` of every candidate, in any order and a page at a time, leaving
   * out the candidates that have none there (null or absent: the aggregates that take any order
   * skip nulls). Null when the source cannot say them without the documents (the evaluator then
   * reads pages of documents); optional.
   */
  values?(request: ScanRequest, path: FieldPath): Promise<AsyncIterable<readonly unknown[]> | null>;
  /**
   * For an aggregate of one path's values that depends only on the first occurrence of each
   * (`array::unique(*[_type == "post"].author._ref)`): the distinct values at `path` of the
   * candidates, each where the first candidate (in dataset order) that has it puts it, null among
   * them where a candidate has none. Null when the source cannot say them so, or when a candidate
   * has an object or array there; optional.
   */
  firstValues?(request: ScanRequest, path: FieldPath): Promise<readonly unknown[] | null>;
  /**
   * For an aggregate of the numbers at one path (`math::sum(*[_type == "post"].views)`) whose
   * request is unordered: a summary of the candidates' values there (nulls and absent values left
   * out), computed where they are stored. Null when the source cannot say it (the evaluator then
   * asks for the values); optional.
   */
  numbers?(request: ScanRequest, path: FieldPath): Promise<NumberSummary | null>;
  /** The document whose `_id` is `id`, or null. Called for every `->`; must not scan. */
  getDocument(id: string): unknown;
  /** Fetches what was answered with PENDING since the last call. Needed only by asynchronous sources. */
  load?(): Promise<void>;
}

/** The reference source: documents in memory, dereferenced through an id map, scans answered exactly. */
export function createMemorySource(documents: readonly unknown[], options: MemoryScanOptions = {}): DocumentSource {
  const byId = new Map<string, unknown>();
  for (const doc of documents) {
    const id = typeof doc === 'object' && doc !== null ? (doc as { _id?: unknown })._id : undefined;
    // The first document with an id wins, as a scan in dataset order would find it.
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, doc);
  }
  const indexes = new MemoryIndexes(documents);
  return {
    documents: () => documents,
    scan: (request) => scanMemory(documents, indexes, request, options),
    pages: (request) => pagesOf(scanMemory(documents, indexes, { ...request, window: null }, options), options.pageSize ?? 1000, request.unordered === true),
    // Every constraint is applied; a filter with more than constraints needs the documents.
    values: async (request, path) =>
      request.complete && request.unordered ? valuePagesOf(scanMemory(documents, indexes, { ...request, window: null }, options), path, options.pageSize ?? 1000) : null,
    firstValues: async (request, path) => (request.complete ? firstValuesOf(scanMemory(documents, indexes, { ...request, window: null }, options), path) : null),
    numbers: async (request, path) => (request.complete && request.unordered ? numberSummaryOf(scanMemory(documents, indexes, { ...request, window: null }, options), path) : null),
    getDocument: (id) => byId.get(id) ?? null,
  };
}
