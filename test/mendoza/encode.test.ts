import { describe, expect, it } from 'vitest';
import { applyPatch } from 'mendoza';
import { effects, encode, Op } from '../../src/mendoza/index.ts';
import { article } from './fixtures.ts';
import { expectApplies, expectRoundTrip } from './roundtrip.ts';

type Doc = Record<string, unknown>;
type Block = { _key: string; children: { _key: string; text: string }[] };

const blocks = (doc: Doc): Block[] => doc['body'] as Block[];

describe('encode', () => {
  it('gives the patch Sanity\'s encoder gives for the format\'s own example', () => {
    const left = { name: 'Bob Bobson', age: 30, skills: ['Go', 'Patching', 'Playing'] };
    const right = { firstName: 'Bob Bobson', age: 30, skills: ['Diffing', 'Go', 'Patching'] };
    // `dozadiff left.json right.json` in github.com/sanity-io/mendoza's README.
    expect(encode(left, right)).toEqual([19, 1, 10, 1, 14, 'firstName', 11, 2, 20, 'Diffing', 21, 0, 2, 15]);
    expectRoundTrip(left, right);
  });

  it('gives an empty patch for equal values, whatever their key order', () => {
    expect(encode({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toEqual([]);
    expect(encode(null, undefined)).toEqual([]);
  });

  it('sends a literal for a type change, a scalar, or an empty container', () => {
    expect(encode({ a: 1 }, [1])).toEqual([Op.Value, [1]]);
    expect(encode(1, 2)).toEqual([Op.Value, 2]);
    // A Blank output with nothing appended would come out as null.
    for (const empty of ['', [], {}]) {
      const left = { keep: 'a value long enough to keep', x: typeof empty === 'string' ? 'text' : Array.isArray(empty) ? [1, 2] : { y: 1 } };
      const { forward } = expectRoundTrip(left, { ...left, x: empty });
      expect(forward).toContainEqual(empty);
    }
  });

  it('copies the common prefix and suffix of a long string by UTF-8 offsets', () => {
    const left = 'Smörgåsbord: 日本語 text with 😀 emoji, and then some more words at the end';
    const right = left.replace('text', 'prose');
    const patch = encode(left, right);
    // "Smörgåsbord: 日本語 " is 25 bytes (19 characters), "text" 4, the whole string 82.
    expect(patch).toEqual([Op.Blank, Op.StringAppendSlice, 0, 25, Op.StringAppendString, 'prose', Op.StringAppendSlice, 29, 82]);
    expect(Buffer.byteLength(left)).toBe(82);
    expectRoundTrip(left, right);
  });

  it('never splits a surrogate pair, and appends to a string it keeps whole', () => {
    expectRoundTrip('a long enough prefix 😀 and suffix', 'a long enough prefix 😃 and suffix');
    expectRoundTrip('a long enough prefix 😀', 'a long enough prefix 😃');
    expectRoundTrip('😀 then a long enough suffix', '😃 then a long enough suffix');
    const patch = encode('a long enough text', 'a long enough text, and more');
    expect(patch).toEqual([Op.StringAppendString, ', and more']);
    expectRoundTrip({ t: 'a long enough text' }, { t: 'a long enough text, and more' });
  });

  it('addresses fields by their index in JavaScript\'s sort order', () => {
    // UTF-16 order puts U+1F600 (a surrogate pair) before U+E000; UTF-8 order the other way.
    const left = { '\uE000': 'private use field value', '\u{1F600}': 'emoji field value', a: 1 };
    expectRoundTrip(left, { ...left, a: 2, '\u{1F600}': 'emoji field value changed' });
    expectRoundTrip(left, { '\uE000': 'private use field value', a: 1 });
  });

  it('treats fields holding undefined as absent, as the JSON the reader gets does', () => {
    const left = { a: undefined, b: 'a value long enough to keep', c: { d: 1, e: undefined } };
    const right = { b: 'a value long enough to keep', c: { d: 2 }, z: undefined };
    expectRoundTrip(left, right);
  });

  it('handles documents nested as deeply as the store allows (1,000 levels)', () => {
    const nest = (leaf: string): unknown => {
      let value: unknown = leaf;
      for (let i = 0; i < 1000; i++) value = i % 2 ? [value, i] : { a: value, b: i };
      return value;
    };
    expectRoundTrip(nest('a long enough leaf string'), nest('a long enough leaf string, changed'));
  });

  it('copies a renamed field from its old key', () => {
    const value = { nested: ['a value long enough to be worth copying'] };
    expect(encode({ old: value, x: 1 }, { renamed: value, x: 1 })).toEqual([Op.ObjectDeleteField, 0, Op.PushFieldCopy, 0, Op.ReturnIntoObjectPop, 'renamed']);
  });
});

describe('encode on a Portable Text document', () => {
  const left = article();
  const size = JSON.stringify(left).length;

  it('sends one changed word, not the body', () => {
    const right = structuredClone(left);
    const span = blocks(right)[4]!.children[0]!;
    span.text = span.text.replace('editor', 'author');
    const { forward, backward } = expectRoundTrip(left, right);
    for (const patch of [forward, backward]) {
      const text = JSON.stringify(patch);
      expect(text.length).toBeLessThan(size / 40);
      expect(text).not.toContain('Paragraph');
    }
    // Into the body, block 4, its children, span 0, its text: each returned under its own key.
    expect(forward.filter((op) => op === Op.ReturnIntoObjectSameKeyPop)).toHaveLength(3);
  });

  it('moves, inserts and removes blocks as slices of the old body', () => {
    const right = structuredClone(left);
    const body = blocks(right);
    const [moved] = body.splice(1, 1);
    body.splice(6, 0, moved!);
    body.splice(3, 1);
    body.splice(0, 0, { _key: 'fresh', children: [{ _key: 's', text: 'A new first paragraph' }] });
    const { forward, backward } = expectRoundTrip(left, right);
    expect(JSON.stringify(forward)).not.toContain('Paragraph');
    expect(JSON.stringify(backward)).not.toContain('Paragraph 1 ');
    expect(JSON.stringify(backward).length).toBeLessThan(size / 4);
  });

  it('edits a block in place when its key is new but it stands where an old one stood', () => {
    const right = structuredClone(left);
    const block = blocks(right)[2]!;
    block._key = 'rekeyed';
    block.children[1]!.text = 'Paragraph 2 ends elsewhere.';
    const { forward } = expectRoundTrip(left, right);
    expect(JSON.stringify(forward)).not.toContain(block.children[0]!.text);
  });
});

describe('effects', () => {
  const doc = { _id: 'a', _type: 't', _rev: 'r1', title: 'A title long enough to copy', n: 1 };

  it('leaves _rev out, as every consumer applies effects to the document without it', () => {
    const after = { ...doc, _rev: 'r2', n: 2 };
    const { apply, revert } = effects(doc, after);
    const { _rev: _before, ...plain } = doc;
    const { _rev: _after, ...plainAfter } = after;
    expectApplies(plain, apply, plainAfter);
    expectApplies(plainAfter, revert, plain);
    expect(JSON.stringify([apply, revert])).not.toContain('r1');
    expect(effects(doc, { ...doc, _rev: 'r2' })).toEqual({ apply: [], revert: [] });
  });

  it('describes a create and a delete as Sanity does', () => {
    const { _rev: _omitted, ...plain } = doc;
    expect(effects(null, doc)).toEqual({ apply: [Op.Value, plain], revert: [Op.Value, null] });
    expect(effects(doc, undefined)).toEqual({ apply: [Op.Value, null], revert: [Op.Value, plain] });
    expect(effects(undefined, null)).toEqual({ apply: [], revert: [] });
    // What Studio does with them: applyPatch on a missing document, null read back as missing.
    expect(applyPatch(undefined, effects(null, doc).apply)).toEqual(plain);
    expect(applyPatch(plain, effects(doc, null).apply)).toBeNull();
  });
});
