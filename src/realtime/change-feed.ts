import type { Logger } from '../logging.ts';
import type { Store } from '../store/index.ts';
import type { ChangePosition, FeedChange, StoredDocumentChange } from '../store/repos/document-changes.ts';
import { sendTransactionEvents } from './transaction-events.ts';
import type { ListenerRegistry } from './listener-registry.ts';
import type { DocumentStates } from './document-states.ts';

const BATCH = 500;
/** The first look again at changes held back behind a running transaction; it doubles up to the poll interval. */
const HELD_RECHECK_FIRST_MS = 10;

export interface ChangeFeedTiming {
  /** How often the change log is read when no signal came (a lost signal costs at most this). */
  readonly pollIntervalMs: number;
}

/**
 * Reads the change log in commit order from where this instance started and hands each change,
 * with the document before and after it, to the listeners of its dataset. Passes never overlap,
 * so events leave in commit order; a wake during a pass makes it run once more. The position is
 * kept in memory only: listeners need the changes after they subscribed, and a restarted
 * instance's listeners have reconnected and start afresh.
 */
export class ChangeFeed {
  private readonly store: Store;
  private readonly registry: ListenerRegistry;
  private readonly states: DocumentStates;
  private readonly log: Logger;
  private readonly timing: ChangeFeedTiming;
  private position: ChangePosition | undefined;
  private timer: NodeJS.Timeout | undefined;
  private heldTimer: NodeJS.Timeout | undefined;
  private heldRecheckMs = HELD_RECHECK_FIRST_MS;
  private running: Promise<void> | undefined;
  private rerun = false;
  private stopped = false;

  constructor(store: Store, registry: ListenerRegistry, states: DocumentStates, log: Logger, timing: ChangeFeedTiming) {
    this.store = store;
    this.registry = registry;
    this.states = states;
    this.log = log;
    this.timing = timing;
  }

  /** Starts at the current end of the log: every change committed from now on is read. */
  async start(): Promise<void> {
    this.position = await this.store.changes.head();
    this.stopped = false;
    this.schedulePoll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.heldTimer);
    this.timer = undefined;
    this.heldTimer = undefined;
    await this.running;
  }

  /** Reads what has committed since the last pass. */
  wake(): Promise<void> {
    if (this.stopped || !this.position) return Promise.resolve();
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.rerun = false;
        await this.pass();
      } while (this.rerun && !this.stopped);
    })()
      .catch((error: unknown) => this.log.error({ err: error }, 'reading the change log failed; retrying at the next wake'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private schedulePoll(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    // Read the interval each time, so a change of the setting takes effect at the next poll.
    this.timer = setTimeout(() => {
      void this.wake().finally(() => this.schedulePoll());
    }, this.timing.pollIntervalMs);
    this.timer.unref();
  }

  /**
   * Reads the log to its end, one transaction at a time: the events of a transaction leave once
   * all its changes are read (they carry how many there are), which may take several batches.
   * The position moves past a transaction once its events are sent, so a failed pass starts
   * again at a transaction's first change. A transaction of a dataset nobody listens to when its
   * first change is read is skipped whole.
   */
  private async pass(): Promise<void> {
    let cursor = this.position!;
    let pending: PendingTransaction | undefined;
    for (;;) {
      const batch = await this.store.changes.after(cursor, BATCH);
      for (const change of batch) {
        if (pending && !sameTransaction(pending.first, change)) {
          await this.send(pending);
          pending = undefined;
        }
        pending ??= { first: change, watched: this.registry.watches(change.projectId, change.dataset), changes: [], end: change.position };
        if (pending.watched) pending.changes.push(change);
        pending.end = change.position;
        cursor = change.position;
      }
      if (this.stopped) return;
      // A short batch is the end of the log, and a transaction's rows become readable together.
      if (batch.length < BATCH) break;
    }
    if (pending) await this.send(pending);
    await this.recheckHeldBack();
  }

  /**
   * Changes committed behind a transaction still running (any transaction of the database
   * server, PostgreSQL) are not read yet, and their signal is spent: look again soon, backing
   * off while that transaction lasts, rather than at the next poll.
   */
  private async recheckHeldBack(): Promise<void> {
    if (this.stopped || !(await this.store.changes.heldBack(this.position!))) {
      this.heldRecheckMs = HELD_RECHECK_FIRST_MS;
      return;
    }
    if (this.stopped) return;
    clearTimeout(this.heldTimer);
    this.heldTimer = setTimeout(() => void this.wake(), this.heldRecheckMs);
    this.heldTimer.unref();
    this.heldRecheckMs = Math.min(this.heldRecheckMs * 2, this.timing.pollIntervalMs);
  }

  private async send(pending: PendingTransaction): Promise<void> {
    await sendTransactionEvents(this.registry, this.states, await this.withMutations(pending.changes));
    this.position = pending.end;
  }

  /**
   * The changes of one transaction with their mutations, read now: batches of the log leave them
   * out, since only transactions someone listens to need them, and one transaction's are bounded
   * by its request's body.
   */
  private async withMutations(changes: readonly FeedChange[]): Promise<StoredDocumentChange[]> {
    const first = changes[0];
    if (!first) return [];
    const seqs = changes.filter((change) => change.mutationsBytes !== null).map((change) => change.position.seq);
    const mutations = seqs.length === 0 ? new Map<number, string>() : await this.store.changes.mutationsOf(first.projectId, first.dataset, seqs);
    return changes.map(({ mutationsBytes: _length, ...change }) => {
      const text = mutations.get(change.position.seq);
      return { ...change, mutations: text === undefined ? null : (JSON.parse(text) as unknown[]) };
    });
  }
}

interface PendingTransaction {
  readonly first: FeedChange;
  readonly watched: boolean;
  readonly changes: FeedChange[];
  end: ChangePosition;
}

/** The changes of one transaction are consecutive in the log; its id is unique within a dataset. */
function sameTransaction(a: FeedChange, b: FeedChange): boolean {
  return a.transactionId === b.transactionId && a.dataset === b.dataset && a.projectId === b.projectId && a.position.order === b.position.order;
}
