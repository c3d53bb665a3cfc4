import fc from 'fast-check';

// Generated hostile inputs for the adversarial suite: keys and path segments that name what every
// object inherits, in plain, quoted and nested forms; numbers at and past their limits; dates that
// do not exist; ids at and past the id rule; deep nesting; malformed text.

export const INHERITED_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'toJSON'] as const;

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INHERITED_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('_id', '_type', '_rev', '_createdAt', '_key', '', ' ', '.', '$', '[0]', 'a.b', '\u0000', 'ä\u200bb') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

/** An identifier a path may use bare: the inherited names (`__proto__` most of all) and a few ordinary ones. */
const bareName = fc.oneof({ weight: 2, arbitrary: fc.constant('__proto__') }, { weight: 5, arbitrary: fc.constantFrom(...INHERITED_NAMES, 'items', 'n', 'text', 'deep') });

/** A patch path built from hostile segments: dotted, quoted with either quote, indexed, selected by _key. */
export const hostilePath: fc.Arbitrary<string> = fc
  .tuple(
    bareName,
    fc.array(
      fc.oneof(
        { weight: 3, arbitrary: bareName.map((name) => `.${name}`) },
        { weight: 1, arbitrary: hostileKey.map((key) => `["${key.replace(/["\\]/g, '\\$&')}"]`) },
        { weight: 1, arbitrary: hostileKey.map((key) => `['${key.replace(/['\\]/g, '\\$&')}']`) },
        { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }).map((index) => `[${index}]`) },
        { weight: 1, arbitrary: fc.constantFrom('a', '__proto__', 'constructor').map((key) => `[_key=="${key}"]`) },
      ),
      { maxLength: 4 },
    ),
  )
  .map(([first, rest]) => first + rest.join(''));

export const hostileNumber: fc.Arbitrary<number | string> = fc.constantFrom(
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  -0,
  5e-324,
  1e20,
  '99999999999999999999999999999999',
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('', '2030-02-30T00:00:00Z', '2030-13-01T00:00:00Z', '../../etc/passwd', '%00', '\u0000', '\ud800', 'drafts.', 'a'.repeat(129), `drafts.${'a'.repeat(121)}`) },
  { weight: 3, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 5_000 }).map((n) => 'x'.repeat(n)) },
);

/** Document ids: mostly ones the id rule allows (so the rest of a mutation is reached), some it does not. */
export const documentId: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('doc-1', 'drafts.doc-1', 'doc-2', 'drafts.new', 'x'.repeat(128), `drafts.${'b'.repeat(121)}`) },
  { weight: 1, arbitrary: hostileString },
);

/** An ordinary JSON value, so that a request carrying it gets past validation to what it attacks. */
export const plainJson: fc.Arbitrary<JsonText> = fc.oneof(
  fc.constantFrom('1', '"text"', 'true', 'null', '{"a":1}', '[1,2]', '{"_key":"k","x":1}'),
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
);

/** A JSON value as text, with any key (also `__proto__`, which an object literal could not hold). */
export type JsonText = string;

const scalar: fc.Arbitrary<JsonText> = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '-0', '1e308', '-1e308', '5e-324', '123456789012345678901234567890'),
  hostileString.map((text) => JSON.stringify(text)),
);

export const hostileJson: fc.Arbitrary<JsonText> = fc.letrec<{ value: JsonText }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  ),
})).value;

/** An object (as JSON text) with a `_type` and hostile keys and values. */
export const hostileDocument: fc.Arbitrary<JsonText> = fc
  .tuple(fc.option(documentId, { nil: undefined }), fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 4 }))
  .map(([id, entries]) => {
    const fields = [`"_type":"thing"`, ...(id === undefined ? [] : [`"_id":${JSON.stringify(id)}`]), ...entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`)];
    return `{${fields.join(',')}}`;
  });

/** Arrays nested `depth` deep around a value: at and past the documents' nesting limit. */
export const deepNesting: fc.Arbitrary<JsonText> = fc.integer({ min: 990, max: 1100 }).map((depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`);

/** Text that is not JSON, or not quite. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('{', '[', '{"a":}', '{"a":1,}', "{'a':1}", 'undefined', '\u0000', '{"mutations":[', '[1,2', '"unterminated', '{"a":1}{"b":2}'),
  fc.string({ maxLength: 20 }),
);
