import type { OutboxEventRecord, Repositories, StoredDocument } from '../store/index.ts';
import { badRequest } from '../errors.ts';
import type { DocumentChangeRecord } from '../store/repos/document-changes.ts';
import type { UnnumberedRevision } from '../store/repos/revisions.ts';
import { baseIdOf, isDraftId } from './document-ids.ts';
import { MAX_DOCUMENT_HEAP_BYTES, requireStorable } from './document-rules.ts';
import type { DocumentEvent } from '../webhooks/events.ts';
import { newId } from '../new-id.ts';
import { TimeSlices } from '../time-slices.ts';

export type { DocumentEvent } from '../webhooks/events.ts';

export interface ChangeContext {
  projectId: string;
  dataset: string;
  transactionId: string;
  /** Who made the change: a user id, `token:<id>`, or null for the system. */
  actorId: string | null;
  /** One timestamp for the whole transaction. */
  now: string;
}

/** What a transaction does to one document (ChangeSet.outcomes). */
export interface DocumentOutcome {
  id: string;
  operation: 'create' | 'update' | 'delete';
  /** The document after the transaction; null once deleted. */
  document: StoredDocument | null;
}

/** The outbox row of a document event: its payload is the body webhooks deliver. */
export function documentEvent(context: ChangeContext, event: DocumentEvent, documentId: string, documentType: string | null): OutboxEventRecord {
  return {
    projectId: context.projectId,
    dataset: context.dataset,
    event,
    documentId,
    documentType,
    transactionId: context.transactionId,
    payload: { event, dataset: context.dataset, documentId, documentType, timestamp: context.now },
    createdAt: context.now,
  };
}

/**
 * The change-log row of a document the transaction wrote (`_rev` before and after; null: absent),
 * for real-time listeners, with the mutations applied to it as the client sent them (null when
 * the write did not come from mutations: listeners then see a createOrReplace or a delete).
 */
export function documentChange(
  context: ChangeContext,
  documentId: string,
  previousRev: string | null,
  resultRev: string | null,
  mutations: readonly unknown[] | null = null,
): DocumentChangeRecord {
  return {
    projectId: context.projectId,
    dataset: context.dataset,
    documentId,
    transactionId: context.transactionId,
    previousRev,
    resultRev,
    actor: context.actorId,
    createdAt: context.now,
    mutations,
  };
}

/** The revision of a written document, without its number (its content is the document's, see RevisionRepository). */
export function revisionOf(context: ChangeContext, document: StoredDocument): UnnumberedRevision {
  return {
    id: newId(),
    projectId: context.projectId,
    dataset: context.dataset,
    documentId: baseIdOf(document._id),
    isDraft: isDraftId(document._id),
    transactionId: context.transactionId,
    changedBy: context.actorId,
    createdAt: context.now,
  };
}

const MIB = 1024 * 1024;

/**
 * What the stored documents one transaction reads (to change them or look at them) may take in
 * memory, in bytes, each counted as the larger of its text and its parse (getWithTextLength): as much
 * as one document may take (MAX_DOCUMENT_HEAP_BYTES: a sixteenth of HEAP_LIMIT_MB, 32 MiB at its
 * default of 512), so that any document one request can write, one can change. A transaction
 * holds what it reads about three times over until it commits (as read, as changed, written out):
 * 200 patches of documents of 200 KB took 127 MB of heap, and one patch each of enough of them
 * ended the server; so did patches of documents of few bytes and many objects.
 */
export const MAX_TRANSACTION_READ_BYTES = MAX_DOCUMENT_HEAP_BYTES;

/**
 * The documents one transaction reads and writes. Mutations work on it in memory; `commit` then
 * writes each changed document once with its revision snapshot and its outbox event, all inside
 * the caller's database transaction (a transactional outbox). A document created and
 * deleted in the same transaction leaves no trace.
 */
export class ChangeSet {
  readonly tx: Repositories;
  readonly context: ChangeContext;
  private readonly loaded = new Map<string, StoredDocument | null>();
  private readonly changed = new Map<string, StoredDocument | null>();
  /** Events chosen by the operation (publish, unpublish) or suppressed (null), by document id. */
  private readonly events = new Map<string, DocumentEvent | null>();
  /** The mutations applied to each document, as the client sent them, for listeners. */
  private readonly mutations = new Map<string, unknown[]>();
  /** Documents this transaction copied, which it alone holds and may change in place (editable). */
  private readonly owned = new WeakSet<StoredDocument>();
  private readonly slices = new TimeSlices();
  /** The stored documents read so far, and what they take (their text, or their parse when larger). */
  private read = { documents: 0, bytes: 0 };

  constructor(tx: Repositories, context: ChangeContext) {
    this.tx = tx;
    this.context = context;
  }

  /** Locks the documents (by base id) so concurrent transactions on them run one at a time. */
  async lock(ids: Iterable<string>): Promise<void> {
    await this.tx.documents.lock(this.context.projectId, this.context.dataset, [...new Set([...ids].map(baseIdOf))]);
  }

  /** The document as this transaction sees it; callers must not modify the returned object. */
  async get(id: string): Promise<StoredDocument | null> {
    return this.changed.has(id) ? (this.changed.get(id) ?? null) : this.original(id);
  }

  /** The document as it was before this transaction; refuses (400) one beyond what a transaction may read. */
  private async original(id: string): Promise<StoredDocument | null> {
    if (!this.loaded.has(id)) {
      const found = await this.tx.documents.getWithTextLength(this.context.projectId, this.context.dataset, id);
      if (found) {
        this.read = { documents: this.read.documents + 1, bytes: this.read.bytes + found.bytes };
        if (this.read.bytes > MAX_TRANSACTION_READ_BYTES) {
          throw badRequest(
            `The transaction reads more than ${MAX_TRANSACTION_READ_BYTES / MIB} MiB of stored documents, counted as they take in memory (${this.read.documents} so far, the last ${id}): ` +
              'send its changes in several smaller transactions',
          );
        }
      }
      this.loaded.set(id, found?.document ?? null);
    }
    return this.loaded.get(id) ?? null;
  }

  /**
   * The document as this transaction sees it, as an object the transaction owns and may change in
   * place before it `put`s it back: copied on its first change only. A copy per patch made a
   * transaction of a thousand patches of a 1 MB document copy a GB, and hold every copy.
   */
  async editable(id: string): Promise<StoredDocument | null> {
    const current = await this.get(id);
    if (current === null || this.owned.has(current)) return current;
    const copy = structuredClone(current);
    this.owned.add(copy);
    return copy;
  }

  /** Whether the document may still be stored is checked once, at commit (a patch may make it unstorable). */
  put(document: StoredDocument): void {
    this.changed.set(document._id, document);
  }

  /** Gives other requests a turn if this transaction has kept the server's thread for a while. */
  pause(): Promise<void> {
    return this.slices.pause();
  }

  remove(id: string): void {
    this.changed.set(id, null);
  }

  /** Records `event` for `id` (which this transaction writes) instead of the create/update/delete its change implies. */
  announce(id: string, event: DocumentEvent): void {
    this.events.set(id, event);
  }

  /**
   * Records a mutation, as the client sent it, that this transaction applied to `id`: listeners
   * of the document get the transaction's mutations of it, in order, to replay them.
   */
  record(id: string, mutation: unknown): void {
    const recorded = this.mutations.get(id);
    if (recorded) recorded.push(mutation);
    else this.mutations.set(id, [mutation]);
  }

  /** Writes the change of `id` without an event (a publish's deleted draft). */
  silence(id: string): void {
    this.events.set(id, null);
  }

  /**
   * What the transaction does to each document, in the order they were first changed: created,
   * updated or deleted, with the document after (null once deleted). A document created and
   * deleted in it is left out, as commit leaves it out.
   */
  async outcomes(): Promise<DocumentOutcome[]> {
    const outcomes: DocumentOutcome[] = [];
    for (const [id, after] of this.changed) {
      const before = await this.original(id);
      if (before === null && after === null) continue;
      outcomes.push({ id, operation: before === null ? 'create' : after === null ? 'delete' : 'update', document: after });
    }
    return outcomes;
  }

  async commit(): Promise<void> {
    const { tx, context } = this;
    // Every document written or deleted, silenced ones included: listeners on drafts see a publish.
    const logged: DocumentChangeRecord[] = [];
    // Revisions that point at the current content of documents about to change get a copy first.
    const replaced: string[] = [];
    for (const id of this.changed.keys()) if ((await this.original(id)) !== null) replaced.push(baseIdOf(id));
    if (replaced.length > 0) await tx.revisions.preserveCurrent(context.projectId, context.dataset, [...new Set(replaced)]);
    const heapBytes = new Map<string, number>();
    for (const [id, after] of this.changed) {
      if (after) heapBytes.set(id, requireStorable(after, `document ${id}`));
      await this.pause();
    }
    // Pauses between the steps of each document too: each step of a 16 MB document is a long one.
    for (const [id, after] of this.changed) {
      await this.pause();
      const before = await this.original(id);
      if (after === null && before === null) continue;
      logged.push(documentChange(context, id, before?._rev ?? null, after?._rev ?? null, this.mutations.get(id) ?? null));
      if (after) {
        await tx.documents.put(context.projectId, context.dataset, after, heapBytes.get(id));
        await this.pause();
        await tx.revisions.insertNext(revisionOf(context, after));
      } else {
        await tx.documents.delete(context.projectId, context.dataset, id);
        // A schedule belongs to a draft: it must not publish a later draft of the same id.
        if (isDraftId(id)) await tx.schedules.clear(context.projectId, context.dataset, baseIdOf(id));
      }
      const chosen = this.events.get(id);
      const event: DocumentEvent | null =
        chosen !== undefined ? chosen : before === null ? 'document.create' : after === null ? 'document.delete' : 'document.update';
      if (event) await this.emit(event, id, (after ?? before)!._type);
    }
    await this.pause();
    await tx.changes.appendMany(logged, () => this.pause());
  }

  private async emit(event: DocumentEvent, documentId: string, documentType: string | null): Promise<void> {
    await this.tx.outbox.append(documentEvent(this.context, event, documentId, documentType));
  }
}
