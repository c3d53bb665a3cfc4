import { conflict } from '../../errors.ts';
import type { StoredDocument } from '../../store/index.ts';
import type { ChangeSet } from '../change-set.ts';
import type { ListenerMutations } from './listener-mutations.ts';

/** What an action works on: the transaction's documents, and the log of what it did to them. */
export interface ActionContext {
  changes: ChangeSet;
  mutations: ListenerMutations;
}

/** A revision precondition (Sanity's `if...RevisionId`): 409 when the document is not at `expected`. */
export function checkRevision(id: string, document: StoredDocument | null, expected: string | undefined, field: string): void {
  if (expected === undefined || document?._rev === expected) return;
  throw conflict(
    document
      ? `Document "${id}" has revision ${document._rev}, not ${expected} (${field})`
      : `Document "${id}" does not exist, so it is not at revision ${expected} (${field})`,
  );
}

/** `source` as the document `id` (a draft made from a published document, or a copy), written by this transaction. */
export function copyAs(changes: ChangeSet, source: StoredDocument, id: string): StoredDocument {
  const { transactionId, now } = changes.context;
  return { ...source, _id: id, _rev: transactionId, _updatedAt: now };
}
