import { conflict, notFound } from '../../errors.ts';
import { applyMutation, stamp } from '../mutations/apply-mutation.ts';
import type { CopyToDraftAction, CreateDraftAction, DiscardDraftAction, EditDraftAction, ReplaceDraftAction } from './action.ts';
import { checkRevision, copyAs, type ActionContext } from './action-context.ts';

// The actions on a document's draft: create, edit, replace, copy from the published document,
// discard. Events follow from what they write (document.create, update, delete), as for mutations.

/** A new draft; `document.create` also refuses a document that is already published. */
export async function createDraft({ changes, mutations }: ActionContext, action: CreateDraftAction): Promise<void> {
  const { draftId, publishedId } = action;
  const published = await changes.get(publishedId);
  if (published && !action.publishedMayExist) {
    throw conflict(`Document "${publishedId}" is already published: edit its draft instead (sanity.action.document.edit)`);
  }
  if (await changes.get(draftId)) {
    if (action.ifExists === 'ignore') return;
    throw conflict(`Draft "${draftId}" already exists`);
  }
  changes.put(stamp(action.attributes, draftId, changes, published?._createdAt));
  mutations.sent(draftId, { create: { ...action.attributes, _id: draftId } });
}

/**
 * Patches the draft. Without a draft, the published document is copied to the draft first (the
 * draft keeps its `_createdAt`), so an editor's first change of a published document makes its
 * draft. `ifRevisionID` is checked against the document the patch starts from.
 */
export async function editDraft({ changes, mutations }: ActionContext, action: EditDraftAction): Promise<void> {
  const { draftId, publishedId } = action;
  const draft = await changes.get(draftId);
  const source = draft ?? (await changes.get(publishedId));
  if (!source) throw notFound(`Document "${publishedId}" has neither a draft nor a published version to edit`);
  checkRevision(source._id, source, action.ifRevisionID, 'ifRevisionID');
  if (!draft) {
    const copy = copyAs(changes, source, draftId);
    changes.put(copy);
    mutations.sent(draftId, { createIfNotExists: copy });
  }
  await applyMutation(changes, { kind: 'patch', id: draftId, operations: action.operations });
  mutations.sent(draftId, { patch: { id: draftId, ...action.sentPatch } });
}

/** The draft's content replaced whole (`_createdAt` kept from the draft, else the published document). */
export async function replaceDraft({ changes, mutations }: ActionContext, action: ReplaceDraftAction): Promise<void> {
  const { draftId, publishedId } = action;
  const draft = await changes.get(draftId);
  const published = await changes.get(publishedId);
  if (!draft && action.draftMustExist) throw notFound(`Draft "${draftId}" not found`);
  if (!draft && !published) throw notFound(`Document "${publishedId}" has neither a draft nor a published version to replace`);
  const document = stamp(action.attributes, draftId, changes, (draft ?? published)?._createdAt);
  changes.put(document);
  mutations.wrote(draftId, document);
}

/** A new draft copied from the published document (or from the draft itself, which then exists: 409). */
export async function copyToDraft({ changes, mutations }: ActionContext, action: CopyToDraftAction): Promise<void> {
  const base = await changes.get(action.baseId);
  if (!base) throw notFound(`Document "${action.baseId}" not found`);
  checkRevision(action.baseId, base, action.ifBaseRevisionId, 'ifBaseRevisionId');
  if (await changes.get(action.draftId)) throw conflict(`Draft "${action.draftId}" already exists`);
  const copy = copyAs(changes, base, action.draftId);
  changes.put(copy);
  mutations.wrote(action.draftId, copy);
}

/** The draft deleted; it must exist. */
export async function discardDraft({ changes, mutations }: ActionContext, action: DiscardDraftAction): Promise<void> {
  if (!(await changes.get(action.draftId))) throw notFound(`Draft "${action.draftId}" not found`);
  changes.remove(action.draftId);
  mutations.wrote(action.draftId, null);
}
