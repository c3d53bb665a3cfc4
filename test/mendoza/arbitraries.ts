// Generated documents and edits for the mendoza encoder's property tests.
import fc from 'fast-check';

type Json = unknown;
type JsonObject = { [key: string]: Json };

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');

/** Text a person would write: a few to many words, now and then a non-ASCII one. */
export const prose = fc
  .array(fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...WORDS) }, fc.constantFrom('smörgåsbord', 'naïve', 'Ωmega', '日本語', '😀', 'e\u0301')), { minLength: 1, maxLength: 40 })
  .map((words) => words.join(' '));

/**
 * Keys from a small alphabet, so that independently generated objects share fields, with keys
 * whose sorted order differs between UTF-16 (JavaScript, mendoza-js) and UTF-8 (Go).
 */
const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c', 'A', 'B', '_key', '_type', 'text', 'é', '\u{1F600}', '\uE000', 'a b', '', '1', '10', '2') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).filter((k) => k !== '__proto__') },
);

const string = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 2, arbitrary: prose },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  // Lone surrogates too: mendoza-js counts them as 3 UTF-8 bytes, and so must the encoder.
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  string,
);

/** Any JSON value, up to `maxDepth` levels of arrays and objects. */
export function jsonValue(maxDepth = 4): fc.Arbitrary<Json> {
  const { value } = fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth },
      { weight: 3, arbitrary: scalar },
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 6 }) },
      { weight: 1, arbitrary: fc.dictionary(key, tie('value'), { maxKeys: 6 }) },
    ),
  }));
  return value;
}

const keyString = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 6, maxLength: 6 });

const span = fc.record({ _key: keyString, _type: fc.constant('span'), marks: fc.subarray(['strong', 'em', 'code']), text: prose });

const block = fc.record({
  _key: keyString,
  _type: fc.constant('block'),
  style: fc.constantFrom('normal', 'h2', 'blockquote'),
  markDefs: fc.constant([]),
  children: fc.array(span, { minLength: 1, maxLength: 4 }),
});

/** Portable Text: blocks with spans, keys unique within each array. */
export const portableText = fc.array(block, { maxLength: 8 }).map((blocks) => uniqueKeys(blocks.map((b) => ({ ...b, children: uniqueKeys(b.children) }))));

function uniqueKeys<T extends { _key: string }>(items: T[]): T[] {
  return items.map((item, i) => ({ ...item, _key: `${item._key}${i}` }));
}

/** A stored document: system fields, typical content fields and some arbitrary JSON. */
export const sanityDocument: fc.Arbitrary<JsonObject> = fc
  .record({
    _id: fc.constantFrom('post-1', 'drafts.post-1'),
    _type: fc.constant('post'),
    _rev: fc.string({ minLength: 10, maxLength: 10 }),
    _createdAt: fc.constant('2024-01-01T00:00:00Z'),
    _updatedAt: fc.constant('2024-05-01T12:00:00Z'),
    title: prose,
    slug: fc.record({ _type: fc.constant('slug'), current: fc.string({ maxLength: 20 }) }),
    tags: fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
    body: portableText,
    seo: fc.record({ description: prose, image: fc.record({ _type: fc.constant('image'), asset: fc.record({ _ref: fc.string(), _type: fc.constant('reference') }) }) }),
    extra: jsonValue(3),
  }, { requiredKeys: ['_id', '_type', '_rev', '_createdAt', '_updatedAt', 'body'] })
  .map((doc) => doc as JsonObject);

export type Edit = { kind: (typeof EDIT_KINDS)[number]; at: number; to: number; value: Json; text: string };

export const EDIT_KINDS = [
  'set', 'unset', 'rename', 'insert', 'remove', 'move', 'replace', 'string', 'retype',
  'span-text', 'span-split', 'block-insert', 'block-remove', 'block-move',
] as const;

export const edit: fc.Arbitrary<Edit> = fc.record({
  kind: fc.constantFrom(...EDIT_KINDS),
  at: fc.nat(),
  to: fc.nat(),
  value: jsonValue(2),
  text: fc.oneof(prose, fc.string({ maxLength: 4 })),
});

/** `document` with the edits applied, on a deep copy. */
export function applyEdits(document: Json, edits: readonly Edit[]): Json {
  const holder: JsonObject = { root: structuredClone(document) };
  for (const e of edits) applyEdit(holder, e);
  return holder['root'];
}

type Slot = { parent: JsonObject | Json[]; key: string | number };

function slots(holder: JsonObject): Slot[] {
  const found: Slot[] = [];
  const walk = (parent: JsonObject | Json[], key: string | number): void => {
    found.push({ parent, key });
    const value = (parent as JsonObject)[key];
    if (Array.isArray(value)) value.forEach((_, i) => walk(value, i));
    else if (value !== null && typeof value === 'object') for (const k of Object.keys(value)) walk(value as JsonObject, k);
  };
  walk(holder, 'root');
  return found;
}

const isObject = (v: Json): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const get = (slot: Slot): Json => (slot.parent as JsonObject)[slot.key];
const put = (slot: Slot, value: Json): void => {
  (slot.parent as JsonObject)[slot.key] = value;
};

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

const RETYPES: Json[] = [null, 42, 'retyped value', { retyped: true }, ['retyped'], true];

function applyEdit(holder: JsonObject, e: Edit): void {
  const all = slots(holder);
  const objects = all.map(get).filter(isObject);
  const arrays = all.map(get).filter((v): v is Json[] => Array.isArray(v));
  const root = holder['root'];
  const body = isObject(root) && Array.isArray(root['body']) ? (root['body'] as Json[]) : undefined;
  switch (e.kind) {
    case 'set': {
      const target = pick(objects, e.at);
      if (!target) return;
      const keys = Object.keys(target);
      const k = e.to % 3 === 0 || keys.length === 0 ? `new${e.to % 7}` : (pick(keys, e.to) as string);
      target[k] = e.value;
      return;
    }
    case 'unset': {
      const target = pick(objects, e.at);
      const k = target && pick(Object.keys(target), e.to);
      if (target && k !== undefined) delete target[k];
      return;
    }
    case 'rename': {
      const target = pick(objects, e.at);
      const k = target && pick(Object.keys(target), e.to);
      if (!target || k === undefined) return;
      target[`renamed${e.to % 5}`] = target[k];
      delete target[k];
      return;
    }
    case 'insert': {
      const target = pick(arrays, e.at);
      target?.splice(e.to % (target.length + 1), 0, e.value);
      return;
    }
    case 'remove': {
      const target = pick(arrays.filter((a) => a.length > 0), e.at);
      target?.splice(e.to % target.length, 1);
      return;
    }
    case 'move': {
      const target = pick(arrays.filter((a) => a.length > 1), e.at);
      if (!target) return;
      const [moved] = target.splice(e.at % target.length, 1);
      target.splice(e.to % (target.length + 1), 0, moved);
      return;
    }
    case 'replace': {
      const target = pick(arrays.filter((a) => a.length > 0), e.at);
      if (target) target[e.to % target.length] = e.value;
      return;
    }
    case 'string': {
      const slot = pick(all.filter((s) => typeof get(s) === 'string'), e.at);
      if (!slot) return;
      put(slot, spliceText(get(slot) as string, e));
      return;
    }
    case 'retype': {
      const slot = pick(all, e.at) as Slot;
      const type = (v: Json): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
      const current = type(get(slot));
      const others = RETYPES.filter((v) => type(v) !== current);
      put(slot, structuredClone(pick(others, e.to)));
      return;
    }
    case 'span-text':
    case 'span-split': {
      const blockValue = body && pick(body, e.at);
      const children = isObject(blockValue) ? blockValue['children'] : undefined;
      const spanIndex = Array.isArray(children) ? e.to % Math.max(children.length, 1) : -1;
      const spanValue = Array.isArray(children) ? children[spanIndex] : undefined;
      if (!Array.isArray(children) || !isObject(spanValue)) return;
      const text = typeof spanValue['text'] === 'string' ? spanValue['text'] : '';
      if (e.kind === 'span-text') {
        spanValue['text'] = replaceWord(text, e);
      } else {
        const cut = e.to % (text.length + 1);
        spanValue['text'] = text.slice(0, cut);
        children.splice(spanIndex + 1, 0, { ...spanValue, _key: `split${e.at % 1000}`, marks: ['strong'], text: text.slice(cut) });
      }
      return;
    }
    case 'block-insert':
      body?.splice(e.to % (body.length + 1), 0, {
        _key: `new${e.at % 1000}`,
        _type: 'block',
        style: 'normal',
        markDefs: [],
        children: [{ _key: 'newspan', _type: 'span', marks: [], text: e.text }],
      });
      return;
    case 'block-remove':
      if (body && body.length > 0) body.splice(e.to % body.length, 1);
      return;
    case 'block-move': {
      if (!body || body.length < 2) return;
      const [moved] = body.splice(e.at % body.length, 1);
      body.splice(e.to % (body.length + 1), 0, moved);
      return;
    }
  }
}

/** Replaces a few characters somewhere in `text` (whole code points) with `e.text`. */
function spliceText(text: string, e: Edit): string {
  const points = Array.from(text);
  const start = e.to % (points.length + 1);
  points.splice(start, (e.at >> 3) % 5, e.text);
  return points.join('');
}

function replaceWord(text: string, e: Edit): string {
  const words = text.split(' ');
  words[e.to % words.length] = e.text;
  return words.join(' ');
}
