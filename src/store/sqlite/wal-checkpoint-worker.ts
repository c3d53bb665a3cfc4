// The worker thread of wal-checkpointer.ts: its own connection to the database file, checkpointing
// when asked. PASSIVE never waits for a lock, so neither readers nor the writer ever wait for it.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

const port = parentPort!;
const db = new BetterSqlite3((workerData as { file: string }).file);

port.on('message', (message: 'checkpoint' | 'close') => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  db.pragma('wal_checkpoint(PASSIVE)');
});
