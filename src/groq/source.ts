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
// Pushdown seam: `documents()` is the one place where the evaluator reads `*`. A query planner
// will hand it a plan (the filter, ordering and slice around `*`, or a count) so that a SQL source
// can answer from indexes; a source must then return a superset of the matching documents in
// dataset order, since the evaluator still applies the exact filter to the candidates.

/** Returned by a source that has recorded the request and will fetch it in `load()`. */
export const PENDING: unique symbol = Symbol('groq.pending');
export type Pending = typeof PENDING;

export interface DocumentSource {
  /** The documents of `*`, in dataset order. */
  documents(): readonly unknown[] | Pending;
  /** The document whose `_id` is `id`, or null. Called for every `->`; must not scan. */
  getDocument(id: string): unknown;
  /** Fetches what was answered with PENDING since the last call. Needed only by asynchronous sources. */
  load?(): Promise<void>;
}

/** The reference source: documents in memory, dereferenced through an id map. */
export function createMemorySource(documents: readonly unknown[]): DocumentSource {
  const byId = new Map<string, unknown>();
  for (const doc of documents) {
    const id = typeof doc === 'object' && doc !== null ? (doc as { _id?: unknown })._id : undefined;
    // The first document with an id wins, as a scan in dataset order would find it.
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, doc);
  }
  return {
    documents: () => documents,
    getDocument: (id) => byId.get(id) ?? null,
  };
}
