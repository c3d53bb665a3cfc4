import type { Readable } from 'node:stream';
import { AppError, badRequest } from '../errors.ts';

export interface NumberedLine {
  /** 1-based line number in the body. */
  line: number;
  text: string;
}

/**
 * Splits a byte stream into lines as it arrives (never holding more than one line plus a chunk),
 * refusing bodies over `maxBytes` (413) and single lines over `maxLineBytes` (400).
 */
export async function* ndjsonLines(body: Readable, maxBytes: number, maxLineBytes: number): AsyncGenerator<NumberedLine> {
  let carry = '';
  let line = 0;
  let total = 0;
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      // The rest of the body is not read: the connection closes after the answer.
      throw new AppError('PAYLOAD_TOO_LARGE', `The import body is larger than ${maxBytes} bytes (IMPORT_BODY_LIMIT_MB)`, { Connection: 'close' });
    }
    const text = carry + decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    carry = parts.pop() ?? '';
    if (carry.length > maxLineBytes) throw badRequest(`line ${line + parts.length + 1} is longer than ${maxLineBytes} bytes`);
    for (const part of parts) yield { line: ++line, text: part };
  }
  carry += decoder.decode();
  if (carry.length > 0) yield { line: line + 1, text: carry };
}
