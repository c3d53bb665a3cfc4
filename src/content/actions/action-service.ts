import { requireProjectRole } from '../../access/access-control.ts';
import type { Principal } from '../../access/principal.ts';
import { AppError } from '../../errors.ts';
import type { ProjectRecord, Store } from '../../store/index.ts';
import { actorIdOf } from '../actor.ts';
import type { DocumentOutcome } from '../change-set.ts';
import { checkTransactionId, claimTransactionId, runContentTransaction } from '../transactions.ts';
import type { DocumentAction } from './action.ts';
import { applyAction } from './apply-action.ts';
import { ListenerMutations } from './listener-mutations.ts';
import { parseActions } from './parse-actions.ts';

export interface ActionOptions {
  /** Run every action, answer, then roll back: nothing is written or emitted. */
  dryRun?: boolean;
  /** Use this id for the transaction (and as the `_rev` it writes) instead of a new one. */
  transactionId?: string;
  /** Add `_key` to array objects that have none (Sanity's autoGenerateArrayKeys). */
  autoGenerateArrayKeys?: boolean;
}

export interface ActionOutcome {
  transactionId: string;
  /** What the transaction did (or, in a dry run, would do) to each document. */
  results: DocumentOutcome[];
}

/**
 * POST /data/actions: Sanity's Actions API. Every action of a request in one transaction, with
 * the revisions, events and change-log rows of what it wrote. Stages: validate, check access,
 * lock the documents, apply in order, commit together (docs/decisions.md "Actions").
 */
export class ActionService {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  async perform(actor: Principal, project: ProjectRecord, dataset: string, input: unknown, options: ActionOptions = {}): Promise<ActionOutcome> {
    requireProjectRole(actor, project, 'editor', { dataset });
    checkTransactionId(options.transactionId);
    const actions = parseActions(input, { autoGenerateArrayKeys: options.autoGenerateArrayKeys === true });
    const { transactionId, value } = await runContentTransaction(
      this.store,
      { projectId: project.id, dataset, actorId: actorIdOf(actor), dryRun: options.dryRun, transactionId: options.transactionId },
      async (changes) => {
        await changes.lock(actions.map((action) => action.publishedId));
        await claimTransactionId(changes, options.transactionId);
        const mutations = new ListenerMutations();
        for (const [index, action] of actions.entries()) {
          try {
            await applyAction({ changes, mutations }, action);
          } catch (error) {
            throw inAction(error, index, action);
          }
          await changes.pause();
        }
        mutations.recordInto(changes);
        return changes.outcomes();
      },
    );
    return { transactionId, results: value };
  }
}

/** The error of an action, its message naming the action (`actions[1] (sanity.action.document.publish): ...`). */
function inAction(error: unknown, index: number, action: DocumentAction): unknown {
  if (!(error instanceof AppError) || error.statusCode >= 500) return error;
  return new AppError(error.code, `actions[${index}] (${action.type}): ${error.message}`, { ...error.headers });
}
