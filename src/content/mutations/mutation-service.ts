import type { Store } from '../../store/index.ts';
import type { ProjectRecord } from '../../store/index.ts';
import type { Principal } from '../../access/principal.ts';
import { requireProjectRole } from '../../access/access-control.ts';
import { actorIdOf } from '../actor.ts';
import { checkTransactionId, claimTransactionId, runContentTransaction } from '../transactions.ts';
import { applyMutation, type MutationResult } from './apply-mutation.ts';
import { parseMutations } from './parse-mutations.ts';
import type { Mutation } from './mutation.ts';
import { mutationsWithArrayKeys } from './array-keys.ts';

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
    checkTransactionId(options.transactionId);
    const sent = options.autoGenerateArrayKeys ? mutationsWithArrayKeys(input) : input;
    const mutations = parseMutations(sent);
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
        await claimTransactionId(changes, options.transactionId);
        const results: MutationResult[] = [];
        for (const [index, mutation] of mutations.entries()) {
          const result = await applyMutation(changes, mutation);
          changes.record(result.id, asSent((sent as unknown[])[index], mutation, result.id));
          results.push(result);
          await changes.pause();
        }
        return results;
      },
    );
    return { transactionId, results: value };
  }
}

/**
 * A mutation as the client sent it (with the keys autoGenerateArrayKeys added), for listeners to
 * replay; a `create` without `_id` gets the id it created, or a replay could not find the document.
 */
function asSent(raw: unknown, mutation: Mutation, id: string): unknown {
  if (mutation.kind === 'create' && mutation.document._id === undefined) return { create: { _id: id, ...mutation.document } };
  return raw;
}
