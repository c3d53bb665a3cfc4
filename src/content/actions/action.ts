import type { JsonObject } from '../../store/index.ts';
import type { PatchOperations } from '../patch/apply-patch.ts';

/**
 * A validated action of a request to POST /data/actions (Sanity's `sanity.action.document.*`),
 * named by what it does here: Sanity's version actions on a draft are the draft actions below
 * (parse-actions.ts maps them). Every action names the published id of the one document it
 * concerns, whose draft is `drafts.<publishedId>`.
 */
export type DocumentAction =
  | CreateDraftAction
  | EditDraftAction
  | ReplaceDraftAction
  | CopyToDraftAction
  | DiscardDraftAction
  | PublishAction
  | UnpublishAction
  | DeleteDocumentAction;

export type ActionKind = DocumentAction['kind'];

interface ActionTarget {
  /** The actionType as sent, for error messages. */
  type: string;
  publishedId: string;
  draftId: string;
}

/** `document.create` and `document.version.create` with a document: a new draft. */
export interface CreateDraftAction extends ActionTarget {
  kind: 'create';
  attributes: JsonObject;
  /** `ignore` leaves an existing draft as it is; `fail` refuses it. */
  ifExists: 'fail' | 'ignore';
  /** `document.create` refuses a document that is already published; `version.create` does not. */
  publishedMayExist: boolean;
}

/** `document.edit`: patches the draft, made from the published document first when there is none. */
export interface EditDraftAction extends ActionTarget {
  kind: 'edit';
  /** Checked against the draft, or the published document when there is no draft. */
  ifRevisionID?: string;
  operations: PatchOperations;
  /** The patch as sent (without ifRevisionID), for listeners to replay. */
  sentPatch: JsonObject;
}

/** `document.replaceDraft` and `document.version.replace`: the draft's content replaced whole. */
export interface ReplaceDraftAction extends ActionTarget {
  kind: 'replaceDraft';
  attributes: JsonObject;
  /** `version.replace` needs the draft; `replaceDraft` the draft or the published document. */
  draftMustExist: boolean;
}

/** `document.version.create` with a base id: the draft made from a copy of the published document. */
export interface CopyToDraftAction extends ActionTarget {
  kind: 'copyToDraft';
  baseId: string;
  ifBaseRevisionId?: string;
}

/** `document.discard` and `document.version.discard`: the draft deleted. */
export interface DiscardDraftAction extends ActionTarget {
  kind: 'discard';
}

export interface PublishAction extends ActionTarget {
  kind: 'publish';
  ifDraftRevisionId?: string;
  ifPublishedRevisionId?: string;
}

export interface UnpublishAction extends ActionTarget {
  kind: 'unpublish';
}

/** `document.delete`: the published document and the drafts it names. */
export interface DeleteDocumentAction extends ActionTarget {
  kind: 'delete';
  includeDrafts: string[];
}
