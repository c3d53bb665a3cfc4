import { randomUUID } from 'node:crypto';
import type { Repositories, Store } from '../store/index.ts';
import { ChangeSet } from './change-set.ts';

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
    transactionId: scope.transactionId ?? randomUUID(),
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
  const transactionId = scope.transactionId ?? randomUUID();
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
