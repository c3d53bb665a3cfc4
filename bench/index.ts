import { runWriteBenchmark } from './writes.ts';
import { runAssetBenchmark } from './assets.ts';
import { runWebhookBenchmark } from './webhooks.ts';
import { runListenBenchmark } from './listen.ts';
import { runQueryBenchmark } from './queries.ts';
import { runQueryEndpointBenchmark } from './query-endpoint.ts';
import { runImportExportBenchmark } from './import-export.ts';
import { runMemoryBenchmark } from './memory.ts';
import { targetOutcomes } from './lib/targets.ts';
import { printTable } from './lib/report.ts';

// `npm run bench`: every benchmark of the service, each beside its baseline measured in the same run,
// then the targets; with `--check` the process exits with 1 when one was missed.
await runWriteBenchmark();
await runAssetBenchmark();
await runWebhookBenchmark();
await runListenBenchmark();
await runQueryEndpointBenchmark();
await runImportExportBenchmark();
await runQueryBenchmark();
await runMemoryBenchmark();

const { outcomes, allMet } = targetOutcomes();
printTable('Targets', ['target', 'measured', 'bar', ''], outcomes.map((o) => [o.name, o.measured, o.bar, o.met ? 'met' : 'NOT met']));
if (process.argv.includes('--check') && !allMet) process.exitCode = 1;
