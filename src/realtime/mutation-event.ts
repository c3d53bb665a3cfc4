import type { StoredDocument } from '../store/index.ts';
import type { StoredDocumentChange } from '../store/repos/document-changes.ts';
import type { ListenOptions } from './listen-options.ts';
import { mutationEffects, type MendozaEffects } from './mutation-effects.ts';

/**
 * appear: the document matches the filter now and did not before (created, or changed into it);
 * update: it matched before and still does; disappear: it matched before and no longer does
 * (deleted, or changed out of it).
 */
export type Transition = 'appear' | 'update' | 'disappear';

export function transitionOf(matchedBefore: boolean, matchesAfter: boolean): Transition | null {
  if (matchedBefore) return matchesAfter ? 'update' : 'disappear';
  return matchesAfter ? 'appear' : null;
}

/** The data of a mutation event, in the shape of Sanity's listen API. */
export interface MutationEventData {
  eventId: string;
  documentId: string;
  transactionId: string;
  transition: Transition;
  /** Who made the change: a user id, `token:<id>`, or `system`. */
  identity: string;
  mutations?: readonly unknown[];
  /** The document's `_rev` before; left out when it did not exist (Studio compares with undefined). */
  previousRev?: string;
  /** The document's `_rev` after; the transaction id when it was deleted, as in Sanity. */
  resultRev: string;
  /** The resulting document's `_updatedAt`; the transaction's time when it was deleted. */
  timestamp: string;
  /** Events are sent once the change is committed, so queries already see it. */
  visibility: 'query';
  effects?: MendozaEffects;
  result?: StoredDocument;
  previous?: StoredDocument | null;
  /** How many events of this transaction this listener gets (after its filter). */
  transactionTotalEvents: number;
  /** This event's place among them, from 0 (the client's documented convention). */
  transactionCurrentEvent: number;
}

/**
 * One committed change of one document with the document before and after it, shared by every
 * listener that gets an event for it: its mutations and effects are worked out once.
 */
export class ObservedChange {
  readonly change: StoredDocumentChange;
  readonly before: StoredDocument | null;
  readonly after: StoredDocument | null;
  private computedEffects: MendozaEffects | undefined;

  constructor(change: StoredDocumentChange, before: StoredDocument | null, after: StoredDocument | null) {
    this.change = change;
    this.before = before;
    this.after = after;
  }

  /**
   * The mutations the transaction applied to the document as the client sent them; for writes
   * that did not come from mutations (publish, import, ...) the equivalent createOrReplace or delete.
   */
  get mutations(): readonly unknown[] {
    if (this.change.mutations) return this.change.mutations;
    return [this.after ? { createOrReplace: this.after } : { delete: { id: this.change.documentId } }];
  }

  get effects(): MendozaEffects {
    return (this.computedEffects ??= mutationEffects(this.before, this.after));
  }
}

/** Where an event stands among the events of its transaction that one listener gets. */
export interface TransactionPlace {
  total: number;
  current: number;
}

/**
 * One change as one listener option set sees it, serialized at most once per transport however
 * many listeners receive it.
 */
export class PreparedMutationEvent {
  readonly data: MutationEventData;
  private webSocketText: string | undefined;
  private serverSentText: string | undefined;

  constructor(observed: ObservedChange, transition: Transition, place: TransactionPlace, options: ListenOptions) {
    const { change, before, after } = observed;
    this.data = {
      eventId: `${change.transactionId}#${change.documentId}`,
      documentId: change.documentId,
      transactionId: change.transactionId,
      transition,
      identity: change.actor ?? 'system',
      ...(options.includeMutations ? { mutations: observed.mutations } : {}),
      ...(change.previousRev === null ? {} : { previousRev: change.previousRev }),
      resultRev: change.resultRev ?? change.transactionId,
      timestamp: after?._updatedAt ?? change.createdAt,
      visibility: 'query',
      ...(options.effects ? { effects: observed.effects } : {}),
      ...(options.includeResult && after ? { result: after } : {}),
      ...(options.includePreviousRevision ? { previous: before } : {}),
      transactionTotalEvents: place.total,
      transactionCurrentEvent: place.current,
    };
  }

  /** `{"type": "mutation", ...data}`. */
  get webSocketMessage(): string {
    return (this.webSocketText ??= JSON.stringify({ type: 'mutation', ...this.data }));
  }

  /** `event: mutation` with the event id as the SSE id and the data on one line (JSON escapes newlines). */
  get serverSentEvent(): string {
    return (this.serverSentText ??= `event: mutation\nid: ${this.data.eventId}\ndata: ${JSON.stringify(this.data)}\n\n`);
  }
}
