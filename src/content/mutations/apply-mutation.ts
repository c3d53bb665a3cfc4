import { AppError, conflict, notFound } from '../../errors.ts';
import type { JsonObject, StoredDocument } from '../../store/index.ts';
import type { ChangeSet } from '../change-set.ts';
import { newDraftId } from '../document-ids.ts';
import { applyPatch } from '../patch/apply-patch.ts';
import type { Mutation, MutationOperation } from './mutation.ts';

export interface MutationResult {
  id: string;
  operation: MutationOperation;
  /** The document after the mutation (null once deleted); returned when asked for. */
  document: StoredDocument | null;
}

/** Content with the server-owned fields set; the client's `_rev`, `_createdAt`, `_updatedAt` are ignored. */
export function stamp(content: JsonObject, id: string, changes: ChangeSet, createdAt?: string): StoredDocument {
  const { _id: _ignoredId, _type, _rev: _ignoredRev, _createdAt: _ignoredCreated, _updatedAt: _ignoredUpdated, ...fields } = content;
  const { transactionId, now } = changes.context;
  return { _id: id, _type: _type as string, _rev: transactionId, _createdAt: createdAt ?? now, _updatedAt: now, ...fields };
}

/** Applies one mutation to the transaction's change set. */
export async function applyMutation(changes: ChangeSet, mutation: Mutation): Promise<MutationResult> {
  switch (mutation.kind) {
    case 'create': {
      const id = typeof mutation.document._id === 'string' ? mutation.document._id : newDraftId();
      if (await changes.get(id)) throw conflict(`Document "${id}" already exists`);
      const document = stamp(mutation.document, id, changes);
      changes.put(document);
      return { id, operation: 'create', document };
    }
    case 'createOrReplace': {
      const id = mutation.document._id;
      const existing = await changes.get(id);
      const document = stamp(mutation.document, id, changes, existing?._createdAt);
      changes.put(document);
      return { id, operation: existing ? 'update' : 'create', document };
    }
    case 'createIfNotExists': {
      const id = mutation.document._id;
      const existing = await changes.get(id);
      if (existing) return { id, operation: 'none', document: existing };
      const document = stamp(mutation.document, id, changes);
      changes.put(document);
      return { id, operation: 'create', document };
    }
    case 'patch': {
      const existing = await changes.get(mutation.id);
      if (!existing) throw notFound(`Document "${mutation.id}" not found`);
      if (mutation.ifRevisionID !== undefined && mutation.ifRevisionID !== existing._rev) {
        throw new AppError('CONFLICT', `Document "${mutation.id}" has revision ${existing._rev}, not ${mutation.ifRevisionID}`);
      }
      const document = (await changes.editable(mutation.id))!;
      applyPatch(document, mutation.operations);
      document._rev = changes.context.transactionId;
      document._updatedAt = changes.context.now;
      changes.put(document);
      return { id: mutation.id, operation: 'update', document };
    }
    case 'delete': {
      if (!(await changes.get(mutation.id))) return { id: mutation.id, operation: 'none', document: null };
      changes.remove(mutation.id);
      return { id: mutation.id, operation: 'delete', document: null };
    }
  }
}
