import type { ActionKind, DocumentAction } from './action.ts';
import type { ActionContext } from './action-context.ts';
import { copyToDraft, createDraft, discardDraft, editDraft, replaceDraft } from './draft-actions.ts';
import { publish, unpublish } from './publish-actions.ts';
import { deleteDocument } from './delete-action.ts';

type Handler<K extends ActionKind> = (context: ActionContext, action: Extract<DocumentAction, { kind: K }>) => Promise<void>;

/** One handler per kind of action: a new kind does not compile without its handler. */
const HANDLERS: { [K in ActionKind]: Handler<K> } = {
  create: createDraft,
  edit: editDraft,
  replaceDraft,
  copyToDraft,
  discard: discardDraft,
  publish,
  unpublish,
  delete: deleteDocument,
};

/** Applies one action to the transaction's change set. */
export function applyAction(context: ActionContext, action: DocumentAction): Promise<void> {
  return (HANDLERS[action.kind] as Handler<ActionKind>)(context, action as never);
}
