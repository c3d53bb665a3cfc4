import type { Repositories, Store } from '../store/index.ts';
import { ChangeSet } from './change-set.ts';
import { badRequest, conflict } from '../errors.ts';
import { newId } from '../new-id.ts';

export interface TransactionScope {
  projectId: string;
  dataset: string;
  actorId: string | null;
  /** Run everything, then roll back: nothing is written or emitted. */
  dryRun?: boolean;
  /** The transaction's id, when the client chose it. */
  transactionId?: string;
  now?: Date;
}

const TRANSACTION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Mutations or actions in one transaction, at most. Its work holds the writer: 20,000 creates hold
 * it about 2 s on the machine we measure on, and a 16 MiB body could hold 650,000. Sanity's own
 * migration tool sends bodies of 256 KB, about 12,000 mutations at the smallest.
 */
export const MAX_TRANSACTION_STEPS = 20_000;

/** Refuses (400) a list of more than MAX_TRANSACTION_STEPS mutations or actions, `what` naming them. */
export function checkTransactionSteps(steps: readonly unknown[], what: 'mutations' | 'actions'): void {
  if (steps.length > MAX_TRANSACTION_STEPS) {
    throw badRequest(`${what} holds ${steps.length} items; a transaction takes at most ${MAX_TRANSACTION_STEPS.toLocaleString('en')}: send them in several`);
  }
}

/** A client-chosen transaction id (Sanity's `transactionId`): 1 to 64 letters, digits, `_` or `-`. */
export function checkTransactionId(transactionId: string | undefined): void {
  if (transactionId !== undefined && !TRANSACTION_ID.test(transactionId)) {
    throw badRequest('transactionId must be 1 to 64 letters, digits, "_" or "-"');
  }
}

/**
 * Refuses (409) a client-chosen transaction id that an earlier transaction of the dataset already
 * wrote under (docs/decisions.md "Documents"). Call it after the documents' locks, which are
 * always taken first, so no two transactions wait on each other.
 */
export async function claimTransactionId(changes: ChangeSet, transactionId: string | undefined): Promise<void> {
  if (transactionId === undefined) return;
  const { projectId, dataset } = changes.context;
  if (!(await changes.tx.revisions.claimTransactionId(projectId, dataset, transactionId))) {
    throw conflict(`transactionId "${transactionId}" was already used in this dataset: a write must make new revisions`);
  }
}

class DryRunRollback<T> extends Error {
  readonly value: T;
  constructor(value: T) {
    super('dry run');
    this.value = value;
  }
}

/** Runs `work` on a fresh ChangeSet bound to an open database transaction, then commits the set into it. */
export async function withChangeSet<T>(
  tx: Repositories,
  scope: TransactionScope & { transactionId?: string },
  work: (changes: ChangeSet) => Promise<T>,
): Promise<T> {
  const changes = new ChangeSet(tx, {
    projectId: scope.projectId,
    dataset: scope.dataset,
    actorId: scope.actorId,
    transactionId: scope.transactionId ?? newId(),
    now: (scope.now ?? new Date()).toISOString(),
  });
  const result = await work(changes);
  await changes.commit();
  return result;
}

/**
 * Runs `work` on a fresh ChangeSet inside one database transaction and commits the set's
 * documents, revisions and events with it. If `work` throws, nothing is written; with `dryRun`
 * everything runs and is then rolled back.
 */
export async function runContentTransaction<T>(
  store: Store,
  scope: TransactionScope,
  work: (changes: ChangeSet) => Promise<T>,
): Promise<{ transactionId: string; value: T }> {
  const transactionId = scope.transactionId ?? newId();
  try {
    const value = await store.transaction(async (tx) => {
      const result = await withChangeSet(tx, { ...scope, transactionId }, work);
      if (scope.dryRun) throw new DryRunRollback(result);
      return result;
    });
    return { transactionId, value };
  } catch (error) {
    if (error instanceof DryRunRollback) return { transactionId, value: error.value as T };
    throw error;
  }
}
