import { LRUCache } from 'lru-cache';
import { prepare, type ExprNode, type PreparedQuery } from '../../groq/index.ts';

/** Queries longer than this are prepared each time. */
const MAX_CACHED_LENGTH = 8 * 1024;
/** What the kept queries may take of the heap, about, by the estimate below. */
const CACHED_BYTES = 16 * 1024 * 1024;
/**
 * A prepared query's heap per node of its tree, about, compiled code included: measured 150 to
 * 200 bytes on queries of thousands of nodes.
 */
const BYTES_PER_NODE = 256;

/**
 * The last queries prepared (parsed and planned), by text: clients send the same few queries over
 * and over with other parameters, and preparing cost about a tenth of a lookup by id through the
 * endpoint. A query whose tree depends on its parameters' values (`[$p]`) is prepared each time.
 * They are kept up to CACHED_BYTES by the size of their trees, not only by count: a query of 8
 * KB can be a tree of thousands of nodes (`[n, n, ...]`), 1.5 MB prepared, and 150 different ones
 * ended a server with a 128 MB heap.
 */
export class PreparedQueries {
  private readonly entries: LRUCache<string, PreparedQuery>;

  constructor(capacity = 1000) {
    this.entries = new LRUCache({
      max: capacity,
      maxSize: CACHED_BYTES,
      sizeCalculation: (prepared, query) => query.length * 2 + nodesOf(prepared.tree) * BYTES_PER_NODE,
    });
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

/** The objects and arrays a tree is made of (each once, should a planned tree share one). */
function nodesOf(tree: ExprNode): number {
  const seen = new Set<object>();
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    for (const child of Object.values(value)) stack.push(child);
  }
  return seen.size;
}
