import { runWriteBenchmark } from './writes.ts';
import { runAssetBenchmark } from './assets.ts';
import { runWebhookBenchmark } from './webhooks.ts';
import { runListenBenchmark } from './listen.ts';
import { runQueryBenchmark } from './queries.ts';
import { runQueryEndpointBenchmark } from './query-endpoint.ts';
import { runImportExportBenchmark } from './import-export.ts';

// `npm run bench`: every benchmark of the service, each beside its baseline measured in the same run.
await runWriteBenchmark();
await runAssetBenchmark();
await runWebhookBenchmark();
await runListenBenchmark();
await runQueryEndpointBenchmark();
await runImportExportBenchmark();
await runQueryBenchmark();
