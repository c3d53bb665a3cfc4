import { notFound } from '../../errors.ts';
import { publishIn, unpublishIn } from '../publishing-service.ts';
import type { PublishAction, UnpublishAction } from './action.ts';
import { checkRevision, type ActionContext } from './action-context.ts';

// Publish and unpublish as POST /data/publish and /data/unpublish do them (publishIn,
// unpublishIn): the same documents written, and only document.publish or document.unpublish.

/** The draft becomes the published document, if both are at the revisions the action names. */
export async function publish({ changes, mutations }: ActionContext, action: PublishAction): Promise<void> {
  const { draftId, publishedId } = action;
  const draft = await changes.get(draftId);
  if (!draft) throw notFound(`Draft "${draftId}" not found`);
  checkRevision(draftId, draft, action.ifDraftRevisionId, 'ifDraftRevisionId');
  checkRevision(publishedId, await changes.get(publishedId), action.ifPublishedRevisionId, 'ifPublishedRevisionId');
  mutations.wrote(publishedId, await publishIn(changes, publishedId));
  mutations.wrote(draftId, null);
}

/** The published document is deleted; without a draft, its content becomes the draft. */
export async function unpublish({ changes, mutations }: ActionContext, action: UnpublishAction): Promise<void> {
  const { draftId, publishedId } = action;
  const hadDraft = (await changes.get(draftId)) !== null;
  const draft = await unpublishIn(changes, publishedId);
  mutations.wrote(publishedId, null);
  if (!hadDraft) mutations.wrote(draftId, draft);
}
