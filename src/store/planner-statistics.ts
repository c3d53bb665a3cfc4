/**
 * Keeping the query planner's statistics in step with bulk writes. PostgreSQL plans with the
 * statistics ANALYZE gathers; right after an import of 100,000 documents, before anything had
 * analyzed the tables, it planned as if they were empty (a page of posts reading the whole dataset
 * for each of its rows). Autovacuum may be off, or lag behind a bulk load, so the store refreshes
 * them itself: after commits that wrote enough documents, in the background, never inside the
 * writing transaction; and at start, where they are missing or stale. What refreshing means is the
 * engine's (postgres/postgres-statistics.ts); SQLite has none: its plans do not change with
 * statistics (docs/decisions.md, Storage).
 */
export interface PlannerStatisticsEngine {
  /**
   * Refreshes the statistics of the tables queries read where they are missing, stale by the
   * database's own count of changes, or stale after `written` documents written by this process
   * since its last refresh. With `wait`, waits for another instance's refresh and looks again
   * (several instances starting at once refresh once); without, leaves it to that instance.
   */
  refresh(request: { written: number; wait: boolean }): Promise<RefreshOutcome>;
}

export interface RefreshOutcome {
  /** Whether statistics were refreshed (false: none were due, or another instance was at it). */
  refreshed: boolean;
  /** How many documents written since the last refresh make asking again worthwhile. */
  dueAfter: number;
}

/** At most one refresh every this many ms per process, so that a stream of writes does not analyze constantly. */
export const MIN_REFRESH_GAP_MS = 5000;

/**
 * Counts the documents committed by this process and asks the engine to refresh once they may
 * have made the statistics stale: at once after the commit that crossed the mark, then at most
 * once every MIN_REFRESH_GAP_MS, one refresh at a time.
 */
export class PlannerStatistics {
  private readonly engine: PlannerStatisticsEngine;
  private readonly minGapMs: number;
  private readonly now: () => number;
  private pending = 0;
  private dueAfter = 0;
  private lastStarted = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(engine: PlannerStatisticsEngine, options: { minGapMs?: number; now?: () => number } = {}) {
    this.engine = engine;
    this.minGapMs = options.minGapMs ?? MIN_REFRESH_GAP_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** After a commit that wrote `documents` documents (created, replaced or deleted). */
  written(documents: number): void {
    if (documents === 0 || this.closed) return;
    this.pending += documents;
    if (this.pending >= this.dueAfter) this.schedule();
  }

  /** Refreshes what is missing or stale now, waiting for another instance's refresh (at start). */
  async refreshNow(): Promise<void> {
    await this.running;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.run(true);
  }

  /** Waits for the refresh under way, and runs one that is due: a command-line import's process leaves fresh statistics behind. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    if (this.pending > 0 && this.pending >= this.dueAfter) await this.run(false);
  }

  private schedule(): void {
    if (this.timer || this.running || this.closed) return;
    const wait = Math.max(0, this.lastStarted + this.minGapMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run(false);
    }, wait);
    this.timer.unref();
  }

  private run(wait: boolean): Promise<void> {
    const written = this.pending;
    // The check at start does not hold back the refresh after a first import.
    if (!wait) this.lastStarted = this.now();
    this.running = this.engine
      .refresh({ written, wait })
      .then(
        (outcome) => {
          if (outcome.refreshed) this.pending -= written;
          this.dueAfter = outcome.dueAfter;
        },
        (error: unknown) => {
          // Tried again once as many documents again are written: a database that is down is not asked every few seconds.
          this.dueAfter = Math.max(this.dueAfter, 2 * this.pending);
          process.emitWarning(`refreshing the query planner's statistics failed (${String(error)})`);
        },
      )
      .finally(() => {
        this.running = undefined;
        if (this.pending > 0 && this.pending >= this.dueAfter) this.schedule();
      });
    return this.running;
  }
}
