// A server's memory while it answers queries over a stored dataset, in a process of its own (the
// benchmark's process holds the dataset for groq-js): resident memory once the store is open, and
// the peak while a full scan and a large streamed projection run. Prints one JSON line.
//
//   node --expose-gc bench/lib/query-memory-process.ts <databaseUrl> <schema|-> <projectId> <dataset>
import { openStore, StoreDocumentSource } from '../../src/store/index.ts';
import { execute } from '../../src/groq/index.ts';

const [databaseUrl, schema, projectId, dataset] = process.argv.slice(2) as [string, string, string, string];
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** Resident memory sampled while `work` runs (it yields to the event loop at every page and query). */
async function peakDuring<T>(work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    const value = await work();
    return { value, peak: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}

const store = openStore(databaseUrl, schema === '-' ? {} : { schema });
global.gc?.();
const opened = process.memoryUsage().rss;

/** Runs a query to its end, reading a streamed result item by item as the HTTP route does. */
async function run(query: string): Promise<number> {
  const output = await execute(query, { source: new StoreDocumentSource(store, projectId, dataset) });
  if (output.kind === 'value') return Array.isArray(output.value) ? output.value.length : 1;
  let n = 0;
  for await (const item of output.items) if (item !== undefined) n++;
  return n;
}

// Warm up the engine's code, then measure each query from a collected heap.
await run('*[_id == "x"][0]');
global.gc?.();
const beforeScan = process.memoryUsage().rss;
const scan = await peakDuring(() => run('count(*[_type == "post" && body[0].children[0].text match "coffee"])'));
global.gc?.();
const stream = await peakDuring(() => run('*[_type == "post"]{_id, "title": title.en, body}'));
global.gc?.();
console.log(
  JSON.stringify({
    openedMb: mb(opened),
    beforeScanMb: mb(beforeScan),
    fullScanPeakMb: mb(scan.peak),
    streamPeakMb: mb(stream.peak),
    streamedItems: stream.value,
    scanResult: scan.value,
    finalMb: mb(process.memoryUsage().rss),
  }),
);
await store.close();
