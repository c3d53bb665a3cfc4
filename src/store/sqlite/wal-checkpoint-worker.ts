// The worker thread of wal-checkpointer.ts: its own connection to the database file, checkpointing
// when asked. PASSIVE never waits for a lock, so neither readers nor the writer ever wait for it.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export interface CheckpointResult {
  /** Frames in the WAL, and how many of them are now in the database file. */
  log: number;
  checkpointed: number;
}

const port = parentPort!;
const db = new BetterSqlite3((workerData as { file: string }).file);

port.on('message', (message: 'checkpoint' | 'close') => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  port.postMessage({ log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 } satisfies CheckpointResult);
});
