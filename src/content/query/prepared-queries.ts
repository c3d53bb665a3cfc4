import { LRUCache } from 'lru-cache';
import { prepare, type PreparedQuery } from '../../groq/index.ts';

/** Queries longer than this are prepared each time: the cache's memory stays small. */
const MAX_CACHED_LENGTH = 8 * 1024;

/**
 * The last queries prepared (parsed and planned), by text: clients send the same few queries over
 * and over with other parameters, and preparing cost about a tenth of a lookup by id through the
 * endpoint. A query whose tree depends on its parameters' values (`[$p]`) is prepared each time.
 */
export class PreparedQueries {
  private readonly entries: LRUCache<string, PreparedQuery>;

  constructor(capacity = 1000) {
    this.entries = new LRUCache({ max: capacity });
  }

  get(query: string, params: Readonly<Record<string, unknown>>): PreparedQuery {
    const cached = this.entries.get(query);
    if (cached) return cached;
    const prepared = prepare(query, { params });
    if (!prepared.readsParams && query.length <= MAX_CACHED_LENGTH) this.entries.set(query, prepared);
    return prepared;
  }

  get size(): number {
    return this.entries.size;
  }
}
