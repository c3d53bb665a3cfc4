import { LineParts, lineTooLong, type LineSplitter, type RawLine } from './line-splitter.ts';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../json/json-characters.ts';

export const isWhitespace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

type Where = 'before' | 'between' | 'element' | 'after' | 'ignored';

/**
 * The top-level elements of a JSON array, cut out as the bytes arrive without parsing them: it
 * follows strings (and their escapes) and nesting depth only, so element n becomes "line" n and is
 * parsed and checked like an NDJSON line. What is malformed comes out as a line that does not parse,
 * or as an error line (an empty element, text after the closing `]`, an array that is not closed).
 */
export class JsonArrayScanner implements LineSplitter {
  private readonly current: LineParts;
  private readonly maxLineBytes: number;
  private where: Where = 'before';
  private count = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** A comma was the last thing between elements, so `]` there closes an empty element. */
  private afterComma = false;
  /** Where the next quote and backslash of the current chunk are (its length when there is none). */
  private quoteAt = -1;
  private backslashAt = -1;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
    this.current = new LineParts(maxLineBytes);
  }

  push(chunk: Buffer): RawLine[] {
    const lines: RawLine[] = [];
    let at = 0;
    this.quoteAt = -1;
    this.backslashAt = -1;
    while (at < chunk.length && this.where !== 'ignored') {
      if (this.where === 'element') {
        const start = at;
        at = this.scanElement(chunk, at);
        this.current.add(chunk.subarray(start, at), this.tooLong);
        if (at === chunk.length) break;
        // `at` is the comma or the ] that ends the element.
        lines.push({ line: ++this.count, bytes: this.current.take() });
        this.afterComma = chunk[at] === COMMA;
        this.where = this.afterComma ? 'between' : 'after';
        at++;
        continue;
      }
      const byte = chunk[at]!;
      if (isWhitespace(byte)) {
        at++;
        continue;
      }
      if (this.where === 'before') {
        if (byte === OPEN_ARRAY) this.where = 'between';
        else this.stop(lines, 'the body is not a JSON array');
      } else if (this.where === 'after') {
        this.stop(lines, 'unexpected text after the closing ] of the array');
      } else if (byte === COMMA || (byte === CLOSE_ARRAY && this.afterComma)) {
        lines.push({ line: ++this.count, error: 'an empty array element' });
        this.where = byte === COMMA ? 'between' : 'after';
      } else if (byte === CLOSE_ARRAY) {
        this.where = 'after';
      } else {
        // The element's first byte: scanned as part of the element.
        this.where = 'element';
        this.depth = 0;
        continue;
      }
      at++;
    }
    return lines;
  }

  /**
   * Follows an element from `from` to the comma or ] that ends it (at depth 0, outside strings), or
   * to the end of the chunk; returns that index. The state is kept in locals while it runs, and a
   * string's bytes are skipped by searching for the next quote and backslash (a document's bytes
   * are mostly strings) instead of testing each byte.
   */
  private scanElement(chunk: Buffer, from: number): number {
    let { depth, inString, escaped, quoteAt, backslashAt } = this;
    const end = chunk.length;
    let at = from;
    while (at < end) {
      if (inString) {
        if (escaped) {
          escaped = false;
          at++;
          continue;
        }
        if (quoteAt < at) quoteAt = indexOr(chunk, QUOTE, at);
        if (backslashAt < at) backslashAt = indexOr(chunk, BACKSLASH, at);
        if (backslashAt < quoteAt) {
          escaped = true;
          at = backslashAt + 1;
        } else {
          inString = quoteAt === end;
          at = quoteAt + 1;
        }
        continue;
      }
      const byte = chunk[at]!;
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
      else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (depth > 0) depth--;
        else if (byte === CLOSE_ARRAY) break;
      } else if (byte === COMMA && depth === 0) break;
      at++;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.quoteAt = quoteAt;
    this.backslashAt = backslashAt;
    return Math.min(at, end);
  }

  end(): RawLine[] {
    const lines: RawLine[] = [];
    if (this.where === 'element') lines.push({ line: ++this.count, bytes: this.current.take() });
    if (this.where === 'element' || this.where === 'between') lines.push({ line: ++this.count, error: 'the array is not closed: the body ends before its ]' });
    this.where = 'ignored';
    return lines;
  }

  /** One error line, and the rest of the body is ignored. */
  private stop(lines: RawLine[], error: string): void {
    lines.push({ line: ++this.count, error });
    this.where = 'ignored';
  }

  private readonly tooLong = () => lineTooLong(`array element ${this.count + 1}`, this.maxLineBytes);
}

function indexOr(chunk: Buffer, byte: number, from: number): number {
  const found = chunk.indexOf(byte, from);
  return found === -1 ? chunk.length : found;
}
