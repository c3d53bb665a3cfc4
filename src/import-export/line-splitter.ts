import type { Readable } from 'node:stream';
import { AppError } from '../errors.ts';

export interface NumberedLine {
  /** 1-based line number in the body (the element number in a JSON array). */
  line: number;
  text: string;
  /** Why this line is no document, when the splitter already knows (a JSON array that breaks off). */
  error?: string;
}

/** The bytes of one line without its line end, or why there is no line at this number. */
export type RawLine = { line: number; bytes: Buffer } | { line: number; error: string };

/** Cuts a byte stream into lines as it arrives; `push` and `end` return the lines completed. */
export interface LineSplitter {
  push(chunk: Buffer): RawLine[];
  end(): RawLine[];
}

/**
 * A 400 that also closes the connection: it is sent while the client may still be sending, and the
 * rest of the body is never read.
 */
export function lineTooLong(what: string, maxLineBytes: number): AppError {
  return new AppError('BAD_REQUEST', `${what} is longer than ${maxLineBytes} bytes`, { Connection: 'close' });
}

/**
 * The parts of one line that spans chunks, kept as a list (never concatenated while it grows) and
 * refused as soon as it passes the line limit.
 */
export class LineParts {
  private parts: Buffer[] = [];
  private length = 0;
  private readonly maxLineBytes: number;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
  }

  get bytes(): number {
    return this.length;
  }

  /** Adds `part`, or throws `tooLong()` when the line would pass the limit. */
  add(part: Buffer, tooLong: () => AppError): void {
    if (this.length + part.length > this.maxLineBytes) throw tooLong();
    if (part.length === 0) return;
    this.parts.push(part);
    this.length += part.length;
  }

  /** The line's bytes (a view of the chunk when it lies in one), and a fresh start. */
  take(): Buffer {
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.length);
    this.parts = [];
    this.length = 0;
    return bytes;
  }
}

/** A line's text: UTF-8 (a line end byte never occurs inside a multi-byte character), without a CR of CRLF. */
function textOf(bytes: Buffer): string {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
  return bytes.toString('utf8', 0, end);
}

/** The numbered lines of `body` as `splitter` cuts them. */
export async function* splitLines(body: Readable | AsyncIterable<Buffer>, splitter: LineSplitter): AsyncGenerator<NumberedLine> {
  for await (const chunk of body as AsyncIterable<Buffer>) {
    for (const raw of splitter.push(chunk)) yield numbered(raw);
  }
  for (const raw of splitter.end()) yield numbered(raw);
}

function numbered(raw: RawLine): NumberedLine {
  return 'error' in raw ? { line: raw.line, text: '', error: raw.error } : { line: raw.line, text: textOf(raw.bytes) };
}
