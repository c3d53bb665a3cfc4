import { conflict, notFound } from '../../errors.ts';
import type { DeleteDocumentAction } from './action.ts';
import type { ActionContext } from './action-context.ts';

/**
 * Deletes the published document and the drafts the action names (document.delete for each). As
 * in Sanity, the published document must exist (a draft alone is discarded), and a draft that
 * exists must be named, so that no one deletes a draft they have not seen.
 */
export async function deleteDocument({ changes, mutations }: ActionContext, action: DeleteDocumentAction): Promise<void> {
  const { publishedId, draftId, includeDrafts } = action;
  if (!(await changes.get(publishedId))) {
    throw notFound(`Published document "${publishedId}" not found (a draft without a published version is discarded instead)`);
  }
  if (!includeDrafts.includes(draftId) && (await changes.get(draftId))) {
    throw conflict(`Document "${publishedId}" has a draft: name "${draftId}" in includeDrafts to delete it too`);
  }
  for (const id of [publishedId, ...includeDrafts]) {
    if (!(await changes.get(id))) continue;
    changes.remove(id);
    mutations.wrote(id, null);
  }
}
