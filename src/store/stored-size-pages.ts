/** Bytes of document text a page of whole documents holds, about: a few MB. */
export const PAGE_TEXT_BYTES = 8 * 1024 * 1024;

/**
 * How many of `rows`, from the first, fit in `budget` bytes together (their `bytes`: a document's
 * text length, read without its content: SqlDialect.documentTextBytes): at least one, if there is
 * one. Pages of whole documents are cut so, whatever the documents weigh (a page of 2,000
 * documents of 200 KB was 400 MB).
 */
export function leadingWithin(rows: readonly { bytes: number }[], budget: number): number {
  let total = 0;
  for (let i = 0; i < rows.length; i++) {
    total += Number(rows[i]!.bytes);
    if (total > budget && i > 0) return i;
  }
  return rows.length;
}
