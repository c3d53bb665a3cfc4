import type BetterSqlite3 from 'better-sqlite3';
import type { SqlExecutor } from '../sql.ts';
import type { SerialQueue } from './serial-queue.ts';

interface Pending {
  fn: (tx: SqlExecutor) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitHooks {
  /** Before a batch begins its transaction; may make it wait. */
  beforeBegin(): Promise<void> | undefined;
  /** After a batch committed. */
  committed(): void;
}

/** Transactions folded into one commit at most: a bound on how long the first one waits for the others. */
const MAX_BATCH = 64;

/**
 * Group commit: transactions that queue up while the writer is busy run back to back in one SQLite
 * transaction, each inside its own savepoint, and commit together. A commit's cost is mostly the
 * pages it writes to the WAL; concurrent small transactions share many of them (the tails of the
 * append-only logs, the upper levels of every B-tree), so under load each pays a fraction of a
 * commit. Every transaction is still atomic and isolated (a failing one rolls back to its
 * savepoint and the others go on), runs in queue order, and its caller hears of it only after
 * the commit that made it durable.
 */
export class GroupCommit {
  private readonly writer: BetterSqlite3.Database;
  private readonly queue: SerialQueue;
  private readonly executor: SqlExecutor;
  private readonly hooks: GroupCommitHooks;
  private pending: Pending[] = [];
  /** The batch waiting for its turn, if one is. */
  private scheduled: Promise<void> | undefined;

  constructor(writer: BetterSqlite3.Database, queue: SerialQueue, executor: SqlExecutor, hooks: GroupCommitHooks) {
    this.writer = writer;
    this.queue = queue;
    this.executor = executor;
    this.hooks = hooks;
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length === 1) this.schedule();
    });
  }

  /** Resolves once every transaction handed in so far has committed or failed. */
  async idle(): Promise<void> {
    while (this.scheduled) await this.scheduled;
  }

  /**
   * Queues a batch for after the current turn of the event loop, so that the requests already
   * received reach their transactions and join it. One batch waits at a time: it takes everything
   * that arrived before it starts.
   */
  private schedule(): void {
    const batch = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.queue.run(() => this.runBatch()));
    this.scheduled = batch;
    void batch.finally(() => {
      if (this.scheduled === batch) this.scheduled = undefined;
    });
  }

  private async runBatch(): Promise<void> {
    const batch = this.pending.splice(0, MAX_BATCH);
    if (this.pending.length > 0) this.schedule();
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    let started = 0;
    try {
      await this.hooks.beforeBegin();
      this.writer.exec('BEGIN IMMEDIATE');
      for (const item of batch) {
        started++;
        this.writer.exec('SAVEPOINT grouped');
        try {
          outcomes.push({ ok: true, value: await item.fn(this.executor) });
          this.writer.exec('RELEASE grouped');
        } catch (error) {
          // Some failures (a full disk, an interrupted statement) end the whole transaction.
          if (!this.writer.inTransaction) throw error;
          this.writer.exec('ROLLBACK TO grouped');
          this.writer.exec('RELEASE grouped');
          outcomes.push({ ok: false, error });
        }
      }
      this.writer.exec('COMMIT');
    } catch (error) {
      if (this.writer.inTransaction) this.writer.exec('ROLLBACK');
      // Nothing of the batch is stored. When one transaction ended it, those that ran fail and the
      // others run again; when the transaction could not even begin, every one fails.
      const failed = started === 0 ? batch.length : started;
      for (const item of batch.slice(0, failed)) item.reject(error);
      const rest = batch.slice(failed);
      if (rest.length > 0) {
        if (this.pending.length === 0) this.schedule();
        this.pending.unshift(...rest);
      }
      return;
    }
    this.hooks.committed();
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
