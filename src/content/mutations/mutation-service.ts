import type { Store } from '../../store/index.ts';
import type { ProjectRecord } from '../../store/index.ts';
import type { Principal } from '../../access/principal.ts';
import { requireProjectRole } from '../../access/access-control.ts';
import { actorIdOf } from '../actor.ts';
import { runContentTransaction } from '../transactions.ts';
import { applyMutation, type MutationResult } from './apply-mutation.ts';
import { parseMutations } from './parse-mutations.ts';
import { mutationsWithArrayKeys } from './array-keys.ts';
import { badRequest, conflict } from '../../errors.ts';

export interface MutateOptions {
  dryRun?: boolean;
  /** Add `_key` to array objects that lack one (Sanity's autoGenerateArrayKeys). */
  autoGenerateArrayKeys?: boolean;
  /** Use this id for the transaction (and as the `_rev` it writes) instead of a new one. */
  transactionId?: string;
}

export interface MutateOutcome {
  transactionId: string;
  results: MutationResult[];
}

/**
 * POST /data/mutate: every mutation of a request in one transaction. Stages: validate, check
 * access, lock the documents, apply in order, commit documents + revisions + events together.
 */
export class MutationService {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  async mutate(actor: Principal, project: ProjectRecord, dataset: string, input: unknown, options: MutateOptions = {}): Promise<MutateOutcome> {
    requireProjectRole(actor, project, 'editor', { dataset });
    if (options.transactionId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(options.transactionId)) {
      throw badRequest('transactionId must be 1 to 64 letters, digits, "_" or "-"');
    }
    const mutations = parseMutations(options.autoGenerateArrayKeys ? mutationsWithArrayKeys(input) : input);
    const { transactionId, value } = await runContentTransaction(
      this.store,
      { projectId: project.id, dataset, actorId: actorIdOf(actor), dryRun: options.dryRun, transactionId: options.transactionId },
      async (changes) => {
        await changes.lock(
          mutations.flatMap((mutation) =>
            mutation.kind === 'patch' || mutation.kind === 'delete'
              ? [mutation.id]
              : typeof mutation.document._id === 'string'
                ? [mutation.document._id]
                : [],
          ),
        );
        // After the documents' locks, which are always taken first, so no two transactions wait on each other.
        if (options.transactionId !== undefined && !(await changes.tx.revisions.claimTransactionId(project.id, dataset, options.transactionId))) {
          throw conflict(`transactionId "${options.transactionId}" was already used in this dataset: a write must make new revisions`);
        }
        const results: MutationResult[] = [];
        for (const mutation of mutations) results.push(await applyMutation(changes, mutation));
        return results;
      },
    );
    return { transactionId, results: value };
  }
}
