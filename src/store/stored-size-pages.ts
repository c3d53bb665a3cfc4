/** Bytes of document text a page of whole documents holds, about: a few MB. */
export const PAGE_TEXT_BYTES = 8 * 1024 * 1024;

/**
 * `items` in consecutive chunks that each fit in `budget` bytes together (`bytes` of each, read
 * without their content: SqlDialect.documentTextBytes and the like), at least one item a chunk:
 * pages of whole documents are cut so, whatever the documents weigh (a page of 2,000 documents of
 * 200 KB was 400 MB). Made as they are asked for.
 */
export function* chunksWithin<T>(items: Iterable<T>, bytes: (item: T) => number, budget: number): Generator<T[]> {
  let chunk: T[] = [];
  let total = 0;
  for (const item of items) {
    const size = bytes(item);
    if (chunk.length > 0 && total + size > budget) {
      yield chunk;
      chunk = [];
      total = 0;
    }
    chunk.push(item);
    total += size;
  }
  if (chunk.length > 0) yield chunk;
}

/** How many of `rows`, from the first, fit in `budget` bytes together (their `bytes`): at least one, if there is one. */
export function leadingWithin(rows: readonly { bytes: number }[], budget: number): number {
  const first = chunksWithin(rows, (row) => Number(row.bytes), budget).next();
  return first.done ? 0 : first.value.length;
}
