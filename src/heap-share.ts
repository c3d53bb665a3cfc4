import { getHeapStatistics } from 'node:v8';

/**
 * `share` of this thread's heap limit, in bytes: what memory bounds are sized by, so that they
 * follow HEAP_LIMIT_MB (and a query worker's own limit) rather than a number fixed here.
 */
export function heapShare(share: number): number {
  return Math.floor(getHeapStatistics().heap_size_limit * share);
}
