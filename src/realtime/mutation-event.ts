import type { StoredDocument } from '../store/index.ts';
import type { StoredDocumentChange } from '../store/repos/document-changes.ts';
import type { ListenOptions } from './listen-options.ts';

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
  previousRev?: string;
  resultRev?: string;
  timestamp: string;
  /** Events are sent once the change is committed, so queries already see it. */
  visibility: 'query';
  result?: StoredDocument;
  previous?: StoredDocument | null;
  mutations?: unknown[];
}

/**
 * One change as one listener option set sees it, serialized at most once per transport however
 * many listeners receive it.
 */
export class PreparedMutationEvent {
  readonly data: MutationEventData;
  private webSocketText: string | undefined;
  private serverSentText: string | undefined;

  constructor(change: StoredDocumentChange, transition: Transition, before: StoredDocument | null, after: StoredDocument | null, options: ListenOptions) {
    this.data = {
      eventId: `${change.transactionId}#${change.documentId}`,
      documentId: change.documentId,
      transactionId: change.transactionId,
      transition,
      identity: change.actor ?? 'system',
      ...(change.previousRev === null ? {} : { previousRev: change.previousRev }),
      ...(change.resultRev === null ? {} : { resultRev: change.resultRev }),
      timestamp: change.createdAt,
      visibility: 'query',
      ...(options.includeResult && after ? { result: after } : {}),
      ...(options.includePreviousRevision ? { previous: before } : {}),
      ...(options.includeMutations ? { mutations: [after ? { createOrReplace: after } : { delete: { id: change.documentId } }] } : {}),
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
