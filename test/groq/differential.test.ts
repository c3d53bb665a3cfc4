// Differential tests: generated datasets and queries must give the same result in our engine and
// in groq-js (the oracle), except for the deviations listed below, each justified by the
// specification or the conformance suite.
import fc from 'fast-check';
import * as groqJs from 'groq-js';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/groq/index.ts';
import { dataset, PARAMS, query } from './arbitraries.ts';

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

async function ours(q: string, docs: unknown[]): Promise<Outcome> {
  try {
    return { ok: true, value: JSON.parse(JSON.stringify(await evaluate(q, { dataset: docs, params: PARAMS }))) as unknown };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

async function theirs(q: string, docs: unknown[]): Promise<Outcome> {
  try {
    const tree = groqJs.parse(q, { params: PARAMS });
    const value = await (await groqJs.evaluate(tree, { dataset: docs, params: PARAMS })).get();
    return { ok: true, value: JSON.parse(JSON.stringify(value ?? null)) as unknown };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (!a.ok || !b.ok) return a.ok === b.ok;
  try {
    expect(a.value).toEqual(b.value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where we differ from groq-js on purpose. Each entry is checked both ways, so that the list
 * stays true: if either engine changes, the test says so.
 */
const DEVIATIONS: { query: string; ours: unknown; groqJs: unknown; reason: string }[] = [
  {
    query: 'array::unique([null, 1, null])',
    ours: [null, 1],
    groqJs: [null, 1, null],
    reason: 'null is a simple value too: the suite (function/array-unique.yml, "Mix of types") expects one null.',
  },
  {
    query: 'path("a.b") in path("a.*")',
    ours: true,
    groqJs: null,
    reason: 'A path matches a path pattern like its string does: the suite (operator/in.yml, "Path") expects true.',
  },
  {
    query: '$missing == null',
    ours: 'GroqParameterError',
    groqJs: true,
    reason: 'An undefined parameter is an error: the suite (misc/params.yml, "Undefined") expects the query to be rejected.',
  },
  {
    query: '*{_id} | score(_id == "d0")',
    ours: 'GroqSyntaxError',
    groqJs: [{ _id: 'd0', _score: 1 }, { _id: 'd1', _score: 0 }],
    reason: 'score() ranks documents: the suite (function/score.yml, "Illegal use") expects projections and elements to be rejected.',
  },
  {
    query: 'true in (1 == 1)',
    ours: null,
    groqJs: 'GroqSyntaxError',
    reason: 'groq-js reads `in (` as the start of a parenthesized range and cannot parse other groups there; the grammar allows any expression.',
  },
];

async function outcomeOf(run: (q: string, docs: unknown[]) => Promise<Outcome>, q: string): Promise<unknown> {
  const outcome = await run(q, [{ _id: 'd0' }, { _id: 'd1' }]);
  return outcome.ok ? outcome.value : outcome.error.split(':')[0];
}

describe('differential: our evaluator agrees with groq-js', () => {
  it.each(DEVIATIONS)('deviates on purpose on $query: $reason', async ({ query: q, ours: expected, groqJs: oracle }) => {
    expect(await outcomeOf(ours, q)).toEqual(expected);
    expect(await outcomeOf(theirs, q)).toEqual(oracle);
  });

  it('on generated queries over generated datasets', async () => {
    await fc.assert(
      fc.asyncProperty(dataset, query, async (docs, q) => {
        const [a, b] = [await ours(q, docs), await theirs(q, docs)];
        if (!sameOutcome(a, b)) {
          throw new Error(`query: ${q}\nours:    ${JSON.stringify(a)}\ngroq-js: ${JSON.stringify(b)}`);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
