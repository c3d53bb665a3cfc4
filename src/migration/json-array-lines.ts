import type { NumberedLine } from './ndjson-lines.ts';

/** A JSON array body as numbered lines: element n is "line" n, so errors point at it the same way. */
export async function* jsonArrayLines(documents: readonly unknown[]): AsyncGenerator<NumberedLine> {
  for (const [index, document] of documents.entries()) yield { line: index + 1, text: JSON.stringify(document) ?? 'null' };
}
