import type { Logger } from '../logging.ts';
import type { Store } from '../store/index.ts';

export interface PruneTiming {
  /** How long changes are kept: far longer than any reader lags behind. */
  readonly retentionMs: number;
  readonly pruneIntervalMs: number;
}

/**
 * Deletes changes older than the retention, so the change log does not grow with the history
 * (the revisions keep that). Every instance prunes; deleting the same old rows twice is harmless.
 */
export class ChangeLogPruner {
  private readonly store: Store;
  private readonly log: Logger;
  private readonly timing: PruneTiming;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(store: Store, log: Logger, timing: PruneTiming, now: () => number = Date.now) {
    this.store = store;
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

  /** Resolves to the number of changes deleted. */
  async prune(): Promise<number> {
    try {
      return await this.store.changes.prune(new Date(this.now() - this.timing.retentionMs).toISOString());
    } catch (error) {
      this.log.error({ err: error }, 'pruning the change log failed; retrying at the next interval');
      return 0;
    }
  }
}
