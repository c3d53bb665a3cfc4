/**
 * The stored JSON text a query read a whole document from, kept beside the parsed document so
 * that an answer made of whole documents is sent as that text instead of being serialized again
 * (SQLite hands the text over; PostgreSQL's driver parses jsonb itself, so none is kept there).
 * The evaluator never modifies the values it reads, and the answer is written before anything
 * else sees it. This record is apart from the writes' (store/serialize.ts): a document read by a
 * query and then changed in place by its caller must never be written as its old text.
 */
const readTexts = new WeakMap<object, string>();

/** A document's content column as the query path reads it: parsed, its text remembered when it came as text. */
export function readDocument(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  const document: unknown = JSON.parse(content);
  if (typeof document === 'object' && document !== null) readTexts.set(document, content);
  return document;
}

/** JSON text of a query's answer: a whole document as it was read, anything else serialized. */
export function answerJson(value: unknown): string {
  return (typeof value === 'object' && value !== null ? readTexts.get(value) : undefined) ?? JSON.stringify(value ?? null);
}
