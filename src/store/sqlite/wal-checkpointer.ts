import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { CheckpointReport, CheckpointRequest } from './wal-checkpoint-worker.ts';

/** After a commit, the checkpoint waits this long, so that a stream of commits shares one. */
const DELAY_MS = 100;
/** SQLite's own threshold (pages), for the writer when the checkpointer is gone. */
const SQLITE_AUTOCHECKPOINT = 1000;

// Compiled to .js beside this file; run from source as .ts.
const WORKER = new URL(`./wal-checkpoint-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Copies committed WAL pages into the database file on a worker thread. SQLite otherwise does it
 * in the connection that commits, on the event loop: every 1,000 pages a commit stalls, and the
 * commit of a large import spent about half a second copying its WAL (15 to 20% of the import).
 * The writer's own checkpoints are turned off while this runs; if the worker dies they come back.
 *
 * SQLite starts the WAL over only when a write transaction begins after a checkpoint copied all of
 * it, which a checkpoint running beside back-to-back commits never does: so once the WAL is past
 * its limit, the next write waits (without blocking the event loop) for a checkpoint to finish.
 */
export class WalCheckpointer {
  private readonly file: string;
  private readonly writer: BetterSqlite3.Database;
  private readonly limitBytes: number;
  private readonly onFailure: (error: unknown) => void;
  /** Started at the first commit: a store that only reads never runs a thread for it. */
  private worker: Worker | undefined;
  private running = false;
  private exited: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  private requested = 0;
  /** The last checkpoint could not copy frames a reader's snapshot still needs: waiting would not help. */
  private heldBack = false;
  private waiters: { seq: number; resolve: () => void }[] = [];

  constructor(file: string, writer: BetterSqlite3.Database, limitBytes: number, onFailure: (error: unknown) => void) {
    this.file = file;
    this.writer = writer;
    this.limitBytes = limitBytes;
    this.onFailure = onFailure;
    writer.pragma('wal_autocheckpoint = 0');
  }

  /** Called after each commit: a checkpoint follows shortly. */
  committed(): void {
    if (this.timer || this.closing) return;
    this.start();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.request();
    }, DELAY_MS);
    this.timer.unref();
  }

  /** Called before each write transaction: resolves at once, or, past the WAL's limit, after a checkpoint. */
  beforeWrite(): Promise<void> | undefined {
    if (!this.running || this.closing || this.heldBack) return undefined;
    if ((statSync(`${this.file}-wal`, { throwIfNoEntry: false })?.size ?? 0) <= this.limitBytes) return undefined;
    const seq = this.request();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** Stops the worker after the checkpoint under way; closing the last connection checkpoints the rest. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.worker) return;
    // Unreferenced, the worker would not keep a process that is only waiting for it alive.
    this.worker.ref();
    this.worker.postMessage({ kind: 'close' } satisfies CheckpointRequest);
    await this.exited;
  }

  private request(): number {
    const seq = ++this.requested;
    this.worker?.postMessage({ kind: 'checkpoint', seq } satisfies CheckpointRequest);
    return seq;
  }

  private reported(report: CheckpointReport): void {
    this.heldBack = !report.complete;
    this.release((waiter) => waiter.seq <= report.seq);
  }

  private release(which: (waiter: { seq: number }) => boolean): void {
    const done = this.waiters.filter(which);
    this.waiters = this.waiters.filter((waiter) => !which(waiter));
    for (const waiter of done) waiter.resolve();
  }

  private start(): void {
    if (this.worker) return;
    const worker = new Worker(WORKER, { workerData: { file: this.file } });
    worker.unref();
    worker.on('message', (report: CheckpointReport) => this.reported(report));
    worker.on('error', (error) => {
      if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT}`);
      this.onFailure(error);
    });
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        this.running = false;
        this.release(() => true);
        resolve();
      }),
    );
    this.worker = worker;
    this.running = true;
  }
}
