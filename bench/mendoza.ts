// Mendoza encoder micro-benchmark: encode times and patch sizes for realistic edits of an article
// (about 4.7 KB of JSON, a Portable Text body of 10 blocks) and of a larger one (50 blocks).
//
//   node bench/mendoza.ts
import { effects, encode } from '../src/mendoza/index.ts';
import { printTable } from './lib/report.ts';
import { article, SENTENCES } from '../test/mendoza/fixtures.ts';

/** Each measurement is the median of this many batches (robust to a busy machine's pauses). */
const BATCHES = 41;
const BATCH_MS = 5;

type Doc = Record<string, unknown>;
type Block = { _key: string; _type: string; children: { _key: string; text: string }[] };

/** The document after an edit, as a separate copy (as the store reads it back), saved a second later. */
function edited(before: Doc, change: (doc: Doc & { body: Block[] }) => void): Doc {
  const after = structuredClone(before) as Doc & { body: Block[] };
  change(after);
  after['_rev'] = 'Yr4cZ0lMnO1qS3tU5vW7xA';
  after['_updatedAt'] = '2024-03-04T16:05:11Z';
  return after;
}

const small = article(10);
const large = article(50);
const longText = { _id: 'note', _type: 'note', text: SENTENCES.join(' ').repeat(25) };

const cases: [string, Doc | null, Doc | null][] = [
  ['one word in a span (4.7 KB)', small, edited(small, (d) => void (d.body[4]!.children[0]!.text = d.body[4]!.children[0]!.text.replace('editor', 'author')))],
  ['one word in a span (22 KB)', large, edited(large, (d) => void (d.body[31]!.children[0]!.text = d.body[31]!.children[0]!.text.replace('editor', 'author')))],
  ['title changed', small, edited(small, (d) => void (d['title'] = 'Why structured content outlives any redesign'))],
  ['only saved (_updatedAt)', small, edited(small, () => {})],
  ['block inserted', small, edited(small, (d) => void d.body.splice(3, 0, { _key: 'new', _type: 'block', children: [{ _key: 's', text: 'A new paragraph.' }] }))],
  ['block moved', small, edited(small, (d) => void d.body.splice(7, 0, ...d.body.splice(2, 1)))],
  ['block removed', small, edited(small, (d) => void d.body.splice(5, 1))],
  ['all blocks reversed', small, edited(small, (d) => void d.body.reverse())],
  ['word in a 10 KB string', longText, { ...longText, text: longText.text.replace('farmer', 'fisherman') }],
  ['created (4.7 KB)', null, small],
];

/** Median time of one run, in microseconds. */
function microseconds(run: () => void): number {
  let perBatch = 1;
  for (let start = performance.now(); performance.now() - start < BATCH_MS; perBatch++) run();
  const times: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const start = performance.now();
    for (let i = 0; i < perBatch; i++) run();
    times.push(((performance.now() - start) * 1000) / perBatch);
  }
  return times.sort((x, y) => x - y)[BATCHES >> 1] as number;
}

const withoutRev = (doc: Doc | null): Doc | null => {
  if (doc === null) return null;
  const { _rev: _omitted, ...rest } = doc;
  return rest;
};

// Warm up (the JIT's optimizing tiers) on every case before measuring the first.
for (const start = performance.now(); performance.now() - start < 500; ) for (const [, before, after] of cases) effects(before, after);

const rows = cases.map(([name, before, after]) => {
  const { apply, revert } = effects(before, after);
  const [from, to] = [withoutRev(before), withoutRev(after)];
  return [
    name,
    JSON.stringify(after ?? before).length,
    JSON.stringify(apply).length,
    JSON.stringify(revert).length,
    microseconds(() => encode(from, to)).toFixed(1),
    microseconds(() => effects(before, after)).toFixed(1),
    // A yardstick for this machine: serializing the document once.
    microseconds(() => JSON.stringify(after ?? before)).toFixed(1),
  ];
});
printTable(
  'Mendoza effects: patch sizes (bytes of JSON) and times',
  ['change', 'document', 'apply', 'revert', 'encode µs', 'effects µs', 'JSON.stringify µs'],
  rows,
);
