import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError } from '../../src/errors.ts';
import type { LineSplitter, RawLine } from '../../src/import-export/line-splitter.ts';
import { NdjsonSplitter } from '../../src/import-export/ndjson-lines.ts';
import { JsonArrayScanner } from '../../src/import-export/json-array-lines.ts';

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

describe('JSON array scanner', () => {
  it('cuts out top-level elements across chunks, whatever their strings hold', () => {
    const documents = [{ _id: 'a', s: 'a ] , [ } { \\" "quoted" \\', n: [1, [2, { x: '}' }]] }, 'text', 12.5e3, null, [], {}];
    const body = ` \r\n${JSON.stringify(documents, null, '\t')}\n`;
    const lines = split(new JsonArrayScanner(LIMIT), body, everyByte(body));
    expect(lines.map((line) => JSON.parse(line.text!) as unknown)).toEqual(documents);
    expect(lines.map((line) => line.line)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reports what is malformed as lines: empty elements, text after ], an array that is not closed', () => {
    expect(split(new JsonArrayScanner(LIMIT), '[]')).toEqual([]);
    expect(split(new JsonArrayScanner(LIMIT), '[1,,2,]')).toEqual([
      { line: 1, text: '1' },
      { line: 2, error: 'an empty array element' },
      { line: 3, text: '2' },
      { line: 4, error: 'an empty array element' },
    ]);
    expect(split(new JsonArrayScanner(LIMIT), '[1] [2]')).toEqual([
      { line: 1, text: '1' },
      { line: 2, error: 'unexpected text after the closing ] of the array' },
    ]);
    expect(split(new JsonArrayScanner(LIMIT), '[{"a":1}, {"b":"x]')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"b":"x]' },
      { line: 3, error: 'the array is not closed: the body ends before its ]' },
    ]);
    expect(split(new JsonArrayScanner(LIMIT), '{"a":1}')).toEqual([{ line: 1, error: 'the body is not a JSON array' }]);
  });

  it('refuses an element as soon as it passes the limit', () => {
    const scanner = new JsonArrayScanner(100);
    expect(scanner.push(Buffer.from('[{"a":1},'))).toHaveLength(1);
    scanner.push(Buffer.from(`"${'x'.repeat(60)}`));
    expect(() => scanner.push(Buffer.alloc(60, 'x'))).toThrow('array element 2 is longer than 100 bytes');
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
const indent = fc.constantFrom<string | number | undefined>(undefined, 0, 1, 2, '\t', ' \r\n');
/** JSON.parse of both sides makes own `__proto__` keys compare the same way. */
const normal = (value: unknown) => JSON.stringify(value);

describe('splitters, on generated documents cut at random boundaries', () => {
  it('the array scanner yields exactly the elements of the array', () => {
    fc.assert(
      fc.property(fc.array(jsonDocument, { maxLength: 8 }), indent, cuts, (documents, space, at) => {
        const body = JSON.stringify(documents, null, space);
        const lines = split(new JsonArrayScanner(LIMIT), body, at);
        const whole = JSON.parse(body) as unknown[];
        expect(lines.map((line) => line.line)).toEqual(whole.map((_, i) => i + 1));
        expect(lines.map((line) => normal(JSON.parse(line.text!)))).toEqual(whole.map(normal));
      }),
      { numRuns: 300 },
    );
  });

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

  it('a cut-off array ends in an error line', () => {
    fc.assert(
      fc.property(fc.array(jsonDocument, { maxLength: 6 }), indent, fc.nat(), (documents, space, at) => {
        const body = Buffer.from(JSON.stringify(documents, null, space));
        const lines = split(new JsonArrayScanner(LIMIT), body.subarray(0, 1 + (at % (body.length - 1))));
        expect(lines.at(-1)).toMatchObject({ error: 'the array is not closed: the body ends before its ]' });
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
        for (const splitter of [new JsonArrayScanner(LIMIT), new NdjsonSplitter(LIMIT)]) {
          const lines = split(splitter, body, at);
          expect(lines.map((line) => line.line)).toEqual(lines.map((_, i) => i + 1));
          for (const line of lines) expect(typeof line.text === 'string' || typeof line.error === 'string').toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
