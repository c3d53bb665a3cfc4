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

/**
 * A whole document kept as its stored JSON text, never parsed: what a scan hands out when its
 * documents are the query's result as they are (ScanRequest.verbatim), for a caller that writes
 * the result with answerJson(). Nothing reads it but answerJson().
 */
export class StoredJson {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** A document's content column for a result that goes out as it is: its text when it came as text. */
export function verbatimDocument(content: unknown): unknown {
  return typeof content === 'string' ? new StoredJson(content) : content;
}

/**
 * JSON text of a query's answer: a whole document as it was read (or kept), an array of them as
 * their texts, anything else serialized.
 */
export function answerJson(value: unknown): string {
  if (value instanceof StoredJson) return value.text;
  if (Array.isArray(value) && value[0] instanceof StoredJson) return `[${value.map(answerJson).join(',')}]`;
  return (typeof value === 'object' && value !== null ? readTexts.get(value) : undefined) ?? JSON.stringify(value ?? null);
}
