import type { Logger } from '../logging.ts';

export interface RetentionTiming {
  /** How long rows are kept: far longer than any reader lags behind. */
  readonly retentionMs: number;
  readonly pruneIntervalMs: number;
}

/** Rows deleted per statement: a large backlog (after an import) never holds the write lock for long. */
export const PRUNE_CHUNK = 10_000;

/**
 * Deletes a log's rows older than the retention every `pruneIntervalMs`, so the log does not grow
 * with the history. `deleteChunk(cutoff, limit)` deletes at most `limit` rows written before
 * `cutoff` and resolves to how many; it is called until a chunk comes back short. Every instance
 * prunes; deleting the same old rows twice is harmless.
 */
export class RetentionPruner {
  private readonly what: string;
  private readonly deleteChunk: (cutoff: string, limit: number) => Promise<number>;
  private readonly log: Logger;
  private readonly timing: RetentionTiming;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    what: string,
    deleteChunk: (cutoff: string, limit: number) => Promise<number>,
    log: Logger,
    timing: RetentionTiming,
    now: () => number = Date.now,
  ) {
    this.what = what;
    this.deleteChunk = deleteChunk;
    this.log = log;
    this.timing = timing;
    this.now = now;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.prune(), this.timing.pruneIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Resolves to the number of rows deleted. */
  async prune(): Promise<number> {
    const cutoff = new Date(this.now() - this.timing.retentionMs).toISOString();
    let deleted = 0;
    try {
      let chunk: number;
      do {
        chunk = await this.deleteChunk(cutoff, PRUNE_CHUNK);
        deleted += chunk;
      } while (chunk === PRUNE_CHUNK);
    } catch (error) {
      this.log.error({ err: error }, `pruning the ${this.what} failed; retrying at the next interval`);
    }
    return deleted;
  }
}
