import { notFound } from '../errors.ts';
import type { ProjectRecord, Store, StoredDocument } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { actorIdOf } from './actor.ts';
import { baseIdOf, draftIdOf } from './document-ids.ts';
import { runContentTransaction } from './transactions.ts';
import { TransactionHistory, type DocumentsAt, type TransactionQuery } from './transaction-history.ts';

export interface RevisionListItem {
  id: string;
  revision: number;
  changed_by: string | null;
  created_at: string;
}

export interface RevisionView extends RevisionListItem {
  documentId: string;
  document: StoredDocument;
}

export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 100;

/**
 * Revision history per base id: list, read, restore (the draft and the published document share
 * one history; a restore writes the draft); and Sanity's History API over the change log:
 * transactions with their effects, documents at a revision or a time.
 */
export class HistoryService {
  private readonly store: Store;
  private readonly now: () => Date;
  private readonly log: TransactionHistory;

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
    this.log = new TransactionHistory(store);
  }

  /** The transactions that touched some documents, as Sanity's NDJSON lines (read lazily). */
  transactions(actor: Principal, project: ProjectRecord, dataset: string, query: TransactionQuery): Promise<AsyncIterable<string>> {
    return this.log.transactions(actor, project, dataset, query);
  }

  /** Documents as they were at a revision (transaction id), a time, or last before deletion. */
  documentsAt(actor: Principal, project: ProjectRecord, dataset: string, ids: readonly string[], at: DocumentsAt): Promise<AsyncGenerator<string>> {
    return this.log.documentsAt(actor, project, dataset, ids, at);
  }

  async list(actor: Principal, project: ProjectRecord, dataset: string, id: string, limit: number, offset: number) {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const documentId = baseIdOf(id);
    const revisions = await this.store.revisions.list(project.id, dataset, documentId, limit, offset);
    return {
      documentId,
      revisions: revisions.map((revision) => ({
        id: revision.id,
        revision: revision.revision,
        changed_by: revision.changedBy,
        created_at: revision.createdAt,
      })),
    };
  }

  async get(actor: Principal, project: ProjectRecord, dataset: string, id: string, revision: number): Promise<RevisionView> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    return this.find(project, dataset, baseIdOf(id), revision);
  }

  /**
   * Writes the revision's content as the draft, adding a new revision; the draft is then published
   * as usual. Emits document.update, or document.create when there was no draft.
   */
  async restore(actor: Principal, project: ProjectRecord, dataset: string, id: string, revision: number): Promise<StoredDocument> {
    requireProjectRole(actor, project, 'editor', { dataset });
    const documentId = baseIdOf(id);
    const draftId = draftIdOf(documentId);
    const scope = { projectId: project.id, dataset, actorId: actorIdOf(actor), now: this.now() };
    const { value } = await runContentTransaction(this.store, scope, async (changes) => {
      await changes.lock([documentId]);
      const source = await this.find(project, dataset, documentId, revision);
      const existingDraft = await changes.get(draftId);
      const { transactionId, now } = changes.context;
      const restored: StoredDocument = {
        ...source.document,
        _id: draftId,
        _rev: transactionId,
        _createdAt: existingDraft?._createdAt ?? source.document._createdAt,
        _updatedAt: now,
      };
      changes.put(restored);
      return restored;
    });
    return value;
  }

  private async find(project: ProjectRecord, dataset: string, documentId: string, revision: number): Promise<RevisionView> {
    const record = await this.store.revisions.get(project.id, dataset, documentId, revision);
    if (!record) {
      const known = await this.store.revisions.exists(project.id, dataset, documentId);
      throw notFound(known ? `Revision ${revision} of "${documentId}" not found` : `Document "${documentId}" has no history`);
    }
    return {
      id: record.id,
      documentId: record.documentId,
      revision: record.revision,
      changed_by: record.changedBy,
      created_at: record.createdAt,
      document: record.content,
    };
  }
}
