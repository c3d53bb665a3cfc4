import { LRUCache } from 'lru-cache';
import type { Store, StoredDocument } from '../store/index.ts';
import type { StoredDocumentChange } from '../store/repos/document-changes.ts';
import { baseIdOf, isDraftId } from '../content/document-ids.ts';

export interface StatesAround {
  before: StoredDocument | null;
  after: StoredDocument | null;
}

/** Text of the documents kept, in bytes, about; and how many at most. */
const KEPT_BYTES = 16 * 1024 * 1024;
const KEPT_DOCUMENTS = 1000;

/**
 * The document before and after a change, from the revisions the change names. The state after
 * one change is the state before the next change of the same document, so the last state of
 * recently changed documents is kept: a stream of edits costs one revision read per change. They
 * are kept up to KEPT_BYTES of text by their stored lengths: 1,000 whatever their size kept 100
 * documents of 1 MB written one after another, and ended a server with a 128 MB heap.
 */
export class DocumentStates {
  private readonly store: Store;
  /** Last known state per document, least recently changed out first. */
  private readonly recent: LRUCache<string, Kept>;

  constructor(store: Store) {
    this.store = store;
    this.recent = new LRUCache({ max: KEPT_DOCUMENTS, maxSize: KEPT_BYTES, sizeCalculation: (kept) => Math.max(1, kept.bytes) });
  }

  async around(change: StoredDocumentChange): Promise<StatesAround> {
    const key = `${change.projectId}\u0000${change.dataset}\u0000${change.documentId}`;
    const before = change.previousRev === null ? null : await this.at(key, change, change.previousRev);
    const after = change.resultRev === null ? null : await this.at(key, change, change.resultRev);
    this.recent.delete(key);
    // One larger than all that may be kept is not (lru-cache would refuse it anyway).
    if (after && after.bytes <= KEPT_BYTES) this.recent.set(key, after);
    return { before: before?.document ?? null, after: after?.document ?? null };
  }

  /**
   * The document as revision `rev` left it. Null if that revision is gone (which only pruning of
   * history could cause): the document is then treated as absent on that side of the change.
   */
  private async at(key: string, change: StoredDocumentChange, rev: string): Promise<Kept | null> {
    const known = this.recent.get(key);
    if (known?.document._rev === rev) return known;
    const { projectId, dataset, documentId } = change;
    const baseId = baseIdOf(documentId);
    const number = await this.store.changes.revisionNumber(projectId, dataset, baseId, isDraftId(documentId), rev);
    if (number === undefined) return null;
    const found = await this.store.revisions.contentWithTextLength(projectId, dataset, baseId, number);
    return found ? { document: found.content, bytes: found.bytes } : null;
  }
}

interface Kept {
  document: StoredDocument;
  bytes: number;
}
