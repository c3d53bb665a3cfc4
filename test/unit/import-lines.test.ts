import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError } from '../../src/errors.ts';
import type { LineSplitter, RawLine } from '../../src/migration/line-splitter.ts';
import { NdjsonSplitter } from '../../src/migration/ndjson-lines.ts';

const LIMIT = 1024 * 1024;

/** Every line `splitter` makes of `body` cut at `cuts` (byte offsets), as text or as an error. */
function split(splitter: LineSplitter, body: Buffer | string, cuts: number[] = []): { line: number; text?: string; error?: string }[] {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const lines: RawLine[] = [];
  let from = 0;
  for (const offset of [...offsets, bytes.length]) {
    lines.push(...splitter.push(bytes.subarray(from, offset)));
    from = offset;
  }
  lines.push(...splitter.end());
  return lines.map((raw) => ('error' in raw ? raw : { line: raw.line, text: raw.bytes.toString('utf8').replace(/\r$/, '') }));
}

const everyByte = (text: string) => Array.from({ length: Buffer.byteLength(text) }, (_, i) => i);

describe('NDJSON splitter', () => {
  it('joins a line split across many chunks, drops the CR of CRLF and numbers blank lines', () => {
    const body = '{"_id":"a","s":"é€😀"}\r\n\r\n{"_id":"b"}\n{"_id":"c"}';
    const lines = split(new NdjsonSplitter(LIMIT), body, everyByte(body));
    expect(lines).toEqual([
      { line: 1, text: '{"_id":"a","s":"é€😀"}' },
      { line: 2, text: '' },
      { line: 3, text: '{"_id":"b"}' },
      { line: 4, text: '{"_id":"c"}' },
    ]);
  });

  it('refuses a line as soon as it passes the limit, before its end arrives', () => {
    const splitter = new NdjsonSplitter(100);
    expect(splitter.push(Buffer.from('{"ok":1}\n'))).toHaveLength(1);
    splitter.push(Buffer.alloc(60, 'x'));
    let refused: unknown;
    try {
      splitter.push(Buffer.alloc(60, 'x'));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ statusCode: 400, message: 'line 2 is longer than 100 bytes', headers: { Connection: 'close' } });
  });

  it('keeps a line of exactly the limit', () => {
    expect(split(new NdjsonSplitter(10), `${'x'.repeat(10)}\n`, [3, 7])).toEqual([{ line: 1, text: 'x'.repeat(10) }]);
  });
});

// Keys and strings that break naive scanners or object handling.
const hostileKey = fc.oneof(
  fc.constantFrom('constructor', 'prototype', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', '_id', '"', '\\', '[', ']', '{', '}', ',', '\\"]'),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const hostileString = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('"]', '\\', '\\"', '[{', '}]', ',', '\u2028', '😀', '\r\n'));
const jsonDocument: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const cuts = fc.array(fc.nat(), { maxLength: 12 });
/** JSON.parse of both sides makes own `__proto__` keys compare the same way. */
const normal = (value: unknown) => JSON.stringify(value);

describe('splitters, on generated documents cut at random boundaries', () => {
  it('the NDJSON splitter yields exactly the lines, with LF or CRLF', () => {
    fc.assert(
      fc.property(fc.array(jsonDocument, { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), cuts, (documents, end, trailing, at) => {
        const lines = documents.map((document) => JSON.stringify(document));
        const body = trailing ? lines.map((line) => line + end).join('') : lines.join(end);
        const found = split(new NdjsonSplitter(LIMIT), body, at);
        expect(found.map((line) => normal(JSON.parse(line.text!)))).toEqual(documents.map((document) => normal(JSON.parse(JSON.stringify(document)))));
      }),
      { numRuns: 300 },
    );
  });

  it('malformed input gives lines or error lines, never a crash', () => {
    const malformed = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc.array(fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ' ', '\n', 'a', '1', ':', 'é'), { maxLength: 60 }).map((parts) => Buffer.from(`[${parts.join('')}`)),
    );
    fc.assert(
      fc.property(malformed, cuts, (body, at) => {
        for (const splitter of [new NdjsonSplitter(LIMIT)]) {
          const lines = split(splitter, body, at);
          expect(lines.map((line) => line.line)).toEqual(lines.map((_, i) => i + 1));
          for (const line of lines) expect(typeof line.text === 'string' || typeof line.error === 'string').toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
