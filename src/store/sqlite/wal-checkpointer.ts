import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** After a commit, the checkpoint waits this long, so that a stream of commits shares one. */
const DELAY_MS = 100;
/** SQLite's own threshold (pages), for the writer when the checkpointer is gone. */
const SQLITE_AUTOCHECKPOINT = 1000;

// Compiled to .js beside this file; run from source as .ts.
const WORKER = new URL(`./wal-checkpoint-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Copies committed WAL pages into the database file on a worker thread. SQLite otherwise does it
 * in the committing connection, on the event loop: every 1,000 pages a commit stalls, and the
 * commit of a large import spent about half a second copying its WAL (15 to 20% of the import).
 * The writer's own checkpoints are turned off while this runs; if the worker dies they come back.
 */
export class WalCheckpointer {
  private readonly file: string;
  private readonly writer: BetterSqlite3.Database;
  private readonly onFailure: (error: unknown) => void;
  /** Started at the first commit: a store that only reads never runs a thread for it. */
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(file: string, writer: BetterSqlite3.Database, onFailure: (error: unknown) => void) {
    this.file = file;
    this.writer = writer;
    this.onFailure = onFailure;
    writer.pragma('wal_autocheckpoint = 0');
  }

  /** Called after each commit: a checkpoint follows shortly. */
  committed(): void {
    if (this.timer || this.closing) return;
    const worker = (this.worker ??= this.start());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      worker.postMessage('checkpoint');
    }, DELAY_MS);
    this.timer.unref();
  }

  /** Stops the worker after the checkpoint under way; closing the last connection checkpoints the rest. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.worker) return;
    // Unreferenced, the worker would not keep a process that is only waiting for it alive.
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }

  private start(): Worker {
    const worker = new Worker(WORKER, { workerData: { file: this.file } });
    worker.unref();
    worker.on('error', (error) => {
      if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT}`);
      this.onFailure(error);
    });
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    return worker;
  }
}
