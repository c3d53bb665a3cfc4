// The worker thread of wal-checkpointer.ts: its own connection to the database file, checkpointing
// when asked. PASSIVE never waits for a lock, so neither readers nor the writer ever wait for it.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export type CheckpointRequest = { kind: 'checkpoint'; seq: number } | { kind: 'close' };
/** After each checkpoint: the last request it answers, and whether it copied the whole WAL. */
export interface CheckpointReport {
  seq: number;
  complete: boolean;
}

/** A checkpoint that a reader held back is tried again this much later, until it is complete. */
const RETRY_MS = 1000;

const port = parentPort!;
const db = new BetterSqlite3((workerData as { file: string }).file);
let retry: NodeJS.Timeout | undefined;
let answered = 0;

function checkpoint(): void {
  clearTimeout(retry);
  retry = undefined;
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  // Frames a reader's snapshot still needed stay in the WAL, and every later read looks them up
  // there: without another commit nothing would ask again, so ask ourselves.
  const complete = !row || (row.busy === 0 && row.checkpointed >= row.log);
  if (!complete) retry = setTimeout(checkpoint, RETRY_MS);
  port.postMessage({ seq: answered, complete } satisfies CheckpointReport);
}

port.on('message', (message: CheckpointRequest) => {
  if (message.kind === 'close') {
    clearTimeout(retry);
    db.close();
    port.close();
    return;
  }
  answered = message.seq;
  checkpoint();
});
