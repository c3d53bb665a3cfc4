import type { Readable } from 'node:stream';
import { AppError } from '../errors.ts';
import { LineParts, lineTooLong, splitLines, type LineSplitter, type NumberedLine, type RawLine } from './line-splitter.ts';

export type { NumberedLine } from './line-splitter.ts';

const NEWLINE = 0x0a;

/**
 * NDJSON: lines end at LF (a CR before it is dropped with the text). Each chunk is searched once,
 * from where the last line ended, so splitting costs the same however long a line is.
 */
export class NdjsonSplitter implements LineSplitter {
  private readonly current: LineParts;
  private readonly maxLineBytes: number;
  private count = 0;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
    this.current = new LineParts(maxLineBytes);
  }

  push(chunk: Buffer): RawLine[] {
    const lines: RawLine[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.current.add(chunk.subarray(start, end), this.tooLong);
      lines.push({ line: ++this.count, bytes: this.current.take() });
      start = end + 1;
    }
    this.current.add(chunk.subarray(start), this.tooLong);
    return lines;
  }

  end(): RawLine[] {
    return this.current.bytes > 0 ? [{ line: ++this.count, bytes: this.current.take() }] : [];
  }

  private readonly tooLong = () => lineTooLong(`line ${this.count + 1}`, this.maxLineBytes);
}

/** The lines of an NDJSON stream, refusing bodies over `maxBytes` (413) and lines over `maxLineBytes` (400). */
export function ndjsonLines(body: Readable, maxBytes: number, maxLineBytes: number): AsyncGenerator<NumberedLine> {
  return splitLines(limitBytes(body, maxBytes), new NdjsonSplitter(maxLineBytes));
}

/** The chunks of `body`, failing with 413 once more than `maxBytes` arrived. */
export async function* limitBytes(body: Readable | AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw bodyTooLarge(maxBytes);
    yield chunk;
  }
}

/** The rest of the body is not read: the connection closes after the answer. */
export function bodyTooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The import body is larger than ${maxBytes} bytes (IMPORT_BODY_LIMIT_MB)`, { Connection: 'close' });
}
