import type { Store, StoredDocument } from '../store/index.ts';
import type { StoredDocumentChange } from '../store/repos/document-changes.ts';
import { baseIdOf, isDraftId } from '../content/document-ids.ts';

export interface StatesAround {
  before: StoredDocument | null;
  after: StoredDocument | null;
}

/**
 * The document before and after a change, from the revisions the change names. The state after
 * one change is the state before the next change of the same document, so the last state of
 * recently changed documents is kept: a stream of edits costs one revision read per change.
 */
export class DocumentStates {
  private readonly store: Store;
  private readonly capacity: number;
  /** Last known state per document, oldest first (a Map keeps insertion order). */
  private readonly recent = new Map<string, StoredDocument>();

  constructor(store: Store, capacity = 1000) {
    this.store = store;
    this.capacity = capacity;
  }

  async around(change: StoredDocumentChange): Promise<StatesAround> {
    const key = `${change.projectId}\u0000${change.dataset}\u0000${change.documentId}`;
    const before = change.previousRev === null ? null : await this.at(key, change, change.previousRev);
    const after = change.resultRev === null ? null : await this.at(key, change, change.resultRev);
    this.recent.delete(key);
    if (after) {
      this.recent.set(key, after);
      if (this.recent.size > this.capacity) this.recent.delete(this.recent.keys().next().value!);
    }
    return { before, after };
  }

  /**
   * The document as revision `rev` left it. Null if that revision is gone (which only pruning of
   * history could cause): the document is then treated as absent on that side of the change.
   */
  private async at(key: string, change: StoredDocumentChange, rev: string): Promise<StoredDocument | null> {
    const known = this.recent.get(key);
    if (known?._rev === rev) return known;
    const { projectId, dataset, documentId } = change;
    const baseId = baseIdOf(documentId);
    const number = await this.store.changes.revisionNumber(projectId, dataset, baseId, isDraftId(documentId), rev);
    if (number === undefined) return null;
    return (await this.store.revisions.get(projectId, dataset, baseId, number))?.content ?? null;
  }
}
