import { runWriteBenchmark } from './writes.ts';

// `npm run bench`: every benchmark of the service, each beside its baseline measured in the same run.
await runWriteBenchmark();
