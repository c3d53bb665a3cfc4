// Runs the GROQ conformance suite (a checkout of github.com/sanity-io/groq-test-suite, named by
// GROQ_TEST_SUITE_DIR) against our engine, with every feature enabled, and compares the
// failures with scripts/groq-suite-known-failures.json. Exits non-zero on a failure not listed there.
//
//   npm run test:groq-suite                        # our engine
//   npm run test:groq-suite -- --verbose           # also print each failure
//   npm run test:groq-suite -- --only "score()"    # cases whose file or name contains the text
//   npm run test:groq-suite -- --oracle            # groq-js instead, for comparison
//   npm run test:groq-suite -- --store sqlite      # over the store, through the query planner
//   npm run test:groq-suite -- --store postgres    # (TEST_DATABASE_URL, default the local server)
//   npm run test:groq-suite -- --write-failures F  # write the failures as a known-failures draft
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSuiteCases, type SuiteCase } from './groq-suite-cases.ts';
import { jsonEqual, replaceScoresWithRanks, skipReason, toJson, type SkipReason } from './groq-suite-judge.ts';
import { groqJsEngine, ourEngine, storeEngine, type Engine } from './groq-suite-engines.ts';

type KnownFailure = { file: string; name: string; query: string; reason: string };
type Failure = { c: SuiteCase; detail: string };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const knownFailuresPath = join(root, 'scripts', 'groq-suite-known-failures.json');

const { values: options } = parseArgs({
  options: {
    oracle: { type: 'boolean', default: false },
    store: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    only: { type: 'string' },
    'write-failures': { type: 'string' },
  },
});

const caseKey = (c: { file: string; name: string; query: string }): string => `${c.file}\u0000${c.name}\u0000${c.query}`;

function loadExternalDatasets(dir: string): Map<string, unknown[]> {
  const datasets = new Map<string, unknown[]>();
  const movies = join(dir, 'movies.ndjson');
  if (existsSync(movies)) {
    const lines = readFileSync(movies, 'utf8').split('\n').filter((l) => l.trim() !== '');
    datasets.set('movies', lines.map((l) => JSON.parse(l) as unknown));
  }
  return datasets;
}

const sortedById = new WeakMap<object, unknown[]>();
function documentsOf(c: SuiteCase, external: Map<string, unknown[]>): unknown[] {
  const dataset = c.dataset;
  if (dataset === null) return [];
  const docs = dataset.kind === 'external' ? (external.get(dataset.name) ?? []) : dataset.documents;
  let sorted = sortedById.get(docs);
  if (!sorted) {
    // The suite assumes documents in _id order.
    const id = (d: unknown): string => String((d as { _id?: unknown } | null)?._id ?? '');
    sorted = [...docs].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
    sortedById.set(docs, sorted);
  }
  return sorted;
}

async function judge(engine: Engine, c: SuiteCase, documents: unknown[]): Promise<string | null> {
  let actual: unknown;
  try {
    actual = toJson(await engine.run(c.query, documents, c.params ?? {}));
  } catch (error) {
    if (!c.valid) return null;
    return `threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  }
  if (!c.valid) return `accepted a query that must be rejected; result ${JSON.stringify(actual)}`;
  replaceScoresWithRanks(actual);
  if (jsonEqual(actual, c.result ?? null)) return null;
  return `expected ${JSON.stringify(c.result)}, got ${JSON.stringify(actual)}`;
}

async function main(): Promise<number> {
  const configured = process.env['GROQ_TEST_SUITE_DIR'];
  const dir = configured === undefined ? undefined : resolve(root, configured);
  if (dir === undefined || !existsSync(join(dir, 'test'))) {
    console.error(
      `GROQ conformance: no suite at ${dir ?? '(GROQ_TEST_SUITE_DIR not set)'}. ` +
        'Clone https://github.com/sanity-io/groq-test-suite and set GROQ_TEST_SUITE_DIR to its directory.',
    );
    return 2;
  }
  const started = performance.now();
  const store = options.store;
  if (store !== undefined && store !== 'sqlite' && store !== 'postgres') throw new Error('--store takes sqlite or postgres');
  const engine = options.oracle
    ? await groqJsEngine()
    : store
      ? await storeEngine(store, process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres')
      : await ourEngine();
  const external = loadExternalDatasets(dir);
  const known = options.oracle ? [] : (JSON.parse(readFileSync(knownFailuresPath, 'utf8')) as KnownFailure[]);
  const knownKeys = new Set(known.map(caseKey));

  const skipped = new Map<SkipReason, number>();
  const failures: Failure[] = [];
  let ran = 0;
  for (const c of loadSuiteCases(dir)) {
    if (options.only && !c.file.includes(options.only) && !c.name.includes(options.only)) continue;
    const reason = skipReason(c, external, engine.tooSlow);
    if (reason) {
      skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
      continue;
    }
    ran++;
    const detail = await judge(engine, c, documentsOf(c, external));
    if (detail !== null) failures.push({ c, detail });
  }

  const failedKeys = new Set(failures.map((f) => caseKey(f.c)));
  const regressions = failures.filter((f) => !knownKeys.has(caseKey(f.c)));
  const fixed = options.only ? [] : known.filter((k) => !failedKeys.has(caseKey(k)));
  const knownCount = failures.length - regressions.length;
  const listed = relative(root, knownFailuresPath);

  for (const f of options.verbose ? failures : regressions) {
    console.log(`${knownKeys.has(caseKey(f.c)) ? 'known' : 'FAIL'}: ${f.c.file} / ${f.c.name}\n  query: ${f.c.query.trim()}\n  ${f.detail.slice(0, 2000)}`);
  }
  for (const k of fixed) console.log(`now passes (remove from ${listed}): ${k.file} / ${k.name}: ${k.query.trim()}`);
  if (options['write-failures']) {
    const draft = failures.map((f) => ({ file: f.c.file, name: f.c.name, query: f.c.query, reason: f.detail.slice(0, 300) }));
    writeFileSync(options['write-failures'], `${JSON.stringify(draft, null, 2)}\n`);
  }

  const skippedText = [...skipped].map(([why, n]) => `${n} ${why}`).join(', ');
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `GROQ conformance (${engine.name}): ${ran - failures.length} of ${ran} cases passed; ` +
      (options.oracle ? `${failures.length} did not` : `${knownCount} known failures (listed in ${listed})`) +
      `; ${[...skipped.values()].reduce((a, b) => a + b, 0)} skipped (${skippedText || 'none'}); ${seconds} s`,
  );
  await engine.close?.();
  if (regressions.length > 0 && !options.oracle) {
    console.log(`${regressions.length} failing cases are not in ${listed}: regressions.`);
    return 1;
  }
  return 0;
}

process.exitCode = await main();
