import { badRequest } from '../../errors.ts';
import type { JsonObject } from '../../store/index.ts';
import { DOCUMENT_ID_PATTERN, DRAFT_PREFIX, VERSION_PREFIX, draftIdOf, isDraftId, isValidDocumentId } from '../document-ids.ts';
import { withArrayKeys } from '../mutations/array-keys.ts';
import { parsePatchOperations } from '../mutations/parse-mutations.ts';
import { requireStorable } from '../document-rules.ts';
import { checkTransactionSteps } from '../transactions.ts';
import { HunkCount } from '../patch/text-patches.ts';
import type { DocumentAction } from './action.ts';

const PREFIX = 'sanity.action.document.';

/** Where a value sits in the request, for messages: `actions[2].publishedId`. */
type At = string;

interface ParseOptions {
  /** Sanity's autoGenerateArrayKeys: `_key` for array objects of documents and patches that have none. */
  autoGenerateArrayKeys: boolean;
}

type Parser = (action: JsonObject, at: At, options: ParseOptions) => DocumentAction;

/** Each supported action type: its fields (besides actionType) and its parser. */
const ACTION_TYPES: Readonly<Record<string, { fields: readonly string[]; parse: Parser }>> = {
  [`${PREFIX}create`]: { fields: ['publishedId', 'attributes', 'ifExists'], parse: parseCreate },
  [`${PREFIX}edit`]: { fields: ['draftId', 'publishedId', 'patch'], parse: parseEdit },
  [`${PREFIX}replaceDraft`]: { fields: ['publishedId', 'attributes'], parse: parseReplaceDraft },
  [`${PREFIX}publish`]: { fields: ['draftId', 'publishedId', 'ifDraftRevisionId', 'ifPublishedRevisionId'], parse: parsePublish },
  [`${PREFIX}unpublish`]: { fields: ['draftId', 'publishedId'], parse: parseUnpublish },
  [`${PREFIX}discard`]: { fields: ['draftId', 'purge'], parse: (action, at) => discard(action, at, 'draftId') },
  [`${PREFIX}delete`]: { fields: ['publishedId', 'includeDrafts', 'purge'], parse: parseDelete },
  [`${PREFIX}version.create`]: { fields: ['publishedId', 'document', 'baseId', 'versionId', 'ifBaseRevisionId'], parse: parseVersionCreate },
  [`${PREFIX}version.discard`]: { fields: ['versionId', 'purge'], parse: (action, at) => discard(action, at, 'versionId') },
  [`${PREFIX}version.replace`]: { fields: ['document'], parse: parseVersionReplace },
};

const NO_RELEASES = 'this service has no content releases';

/** Sanity's action types this service does not serve, and why (anything else is unknown). */
function unsupported(type: string): string | undefined {
  if (type === `${PREFIX}version.unpublish`) return `${NO_RELEASES}, so there is no release to unpublish a version with`;
  if (type.startsWith('sanity.action.release.')) return NO_RELEASES;
  if (type.startsWith(`${PREFIX}variant.`) || type.startsWith('sanity.action.variant.')) return 'this service has no document variants';
  return undefined;
}

/** Validates a request's `actions`; every message names the action by its index. */
export function parseActions(input: unknown, options: ParseOptions): DocumentAction[] {
  if (!Array.isArray(input)) throw badRequest('actions must be an array');
  if (input.length === 0) throw badRequest('actions must contain at least one action');
  checkTransactionSteps(input, 'actions');
  const hunks = new HunkCount();
  return input.map((item, index) => {
    const action = parseAction(item, `actions[${index}]`, options);
    if (action.kind === 'edit') hunks.add(action.operations.diffMatchPatch);
    return action;
  });
}

function parseAction(item: unknown, at: At, options: ParseOptions): DocumentAction {
  if (!isObject(item)) throw badRequest(`${at} must be an object with an actionType`);
  const type = item.actionType;
  if (typeof type !== 'string') throw badRequest(`${at}.actionType is required (a string such as "${PREFIX}edit")`);
  const definition = Object.hasOwn(ACTION_TYPES, type) ? ACTION_TYPES[type] : undefined;
  if (!definition) {
    const reason = unsupported(type);
    if (reason) throw badRequest(`${at}: ${type} is not supported: ${reason}`);
    throw badRequest(`${at}.actionType "${type}" is unknown; use one of ${Object.keys(ACTION_TYPES).join(', ')}`);
  }
  for (const key of Object.keys(item)) {
    if (key !== 'actionType' && !definition.fields.includes(key)) {
      throw badRequest(`${at} has the unknown field "${key}"; ${type} takes ${definition.fields.join(', ')}`);
    }
  }
  if (item.purge !== undefined && item.purge !== false) {
    throw badRequest(`${at}.purge is not supported: a deleted document's history is kept, so that it can be restored`);
  }
  return definition.parse(item, at, options);
}

function parseCreate(action: JsonObject, at: At, options: ParseOptions): DocumentAction {
  const publishedId = parsePublishedId(action.publishedId, `${at}.publishedId`);
  const draftId = draftIdOf(publishedId);
  const attributes = parseDocument(action.attributes, `${at}.attributes`, draftId, options);
  const ifExists = action.ifExists ?? 'fail';
  if (ifExists !== 'fail' && ifExists !== 'ignore') throw badRequest(`${at}.ifExists must be "fail" or "ignore"`);
  return { kind: 'create', type: String(action.actionType), publishedId, draftId, attributes, ifExists, publishedMayExist: false };
}

function parseEdit(action: JsonObject, at: At, options: ParseOptions): DocumentAction {
  const publishedId = parsePublishedId(action.publishedId, `${at}.publishedId`);
  const draftId = parseDraftId(action.draftId, `${at}.draftId`, publishedId);
  if (!isObject(action.patch)) throw badRequest(`${at}.patch must be an object {set, unset, ...}; it applies to draftId`);
  const patch = options.autoGenerateArrayKeys ? withArrayKeys(action.patch) : action.patch;
  const { ifRevisionID, operations } = parsePatchOperations(patch, `${at}.patch`);
  const { ifRevisionID: _checked, ...sentPatch } = patch;
  return { kind: 'edit', type: String(action.actionType), publishedId, draftId, ...(ifRevisionID === undefined ? {} : { ifRevisionID }), operations, sentPatch };
}

function parseReplaceDraft(action: JsonObject, at: At, options: ParseOptions): DocumentAction {
  const publishedId = parsePublishedId(action.publishedId, `${at}.publishedId`);
  const draftId = draftIdOf(publishedId);
  const attributes = parseDocument(action.attributes, `${at}.attributes`, draftId, options);
  return { kind: 'replaceDraft', type: String(action.actionType), publishedId, draftId, attributes, draftMustExist: false };
}

function parsePublish(action: JsonObject, at: At): DocumentAction {
  const publishedId = parsePublishedId(action.publishedId, `${at}.publishedId`);
  const draftId = parseDraftId(action.draftId, `${at}.draftId`, publishedId);
  const ifDraftRevisionId = optionalString(action.ifDraftRevisionId, `${at}.ifDraftRevisionId`);
  const ifPublishedRevisionId = optionalString(action.ifPublishedRevisionId, `${at}.ifPublishedRevisionId`);
  return {
    kind: 'publish',
    type: String(action.actionType),
    publishedId,
    draftId,
    ...(ifDraftRevisionId === undefined ? {} : { ifDraftRevisionId }),
    ...(ifPublishedRevisionId === undefined ? {} : { ifPublishedRevisionId }),
  };
}

function parseUnpublish(action: JsonObject, at: At): DocumentAction {
  const publishedId = parsePublishedId(action.publishedId, `${at}.publishedId`);
  const draftId = parseDraftId(action.draftId, `${at}.draftId`, publishedId);
  return { kind: 'unpublish', type: String(action.actionType), publishedId, draftId };
}

/** `discard` (draftId) and `version.discard` (versionId): the id is the draft's. */
function discard(action: JsonObject, at: At, field: 'draftId' | 'versionId'): DocumentAction {
  const draftId = parseAnyDraftId(action[field], `${at}.${field}`);
  return { kind: 'discard', type: String(action.actionType), publishedId: draftId.slice(DRAFT_PREFIX.length), draftId };
}

function parseDelete(action: JsonObject, at: At): DocumentAction {
  const publishedId = parsePublishedId(action.publishedId, `${at}.publishedId`);
  const drafts = action.includeDrafts ?? [];
  if (!Array.isArray(drafts)) throw badRequest(`${at}.includeDrafts must be an array of draft ids`);
  const includeDrafts = [...new Set(drafts.map((id, index) => parseDraftId(id, `${at}.includeDrafts[${index}]`, publishedId)))];
  return { kind: 'delete', type: String(action.actionType), publishedId, draftId: draftIdOf(publishedId), includeDrafts };
}

/** `version.create`: from a document (`document`), or as a copy of a base document (`baseId`, `versionId`). */
function parseVersionCreate(action: JsonObject, at: At, options: ParseOptions): DocumentAction {
  const type = String(action.actionType);
  const publishedId = parsePublishedId(action.publishedId, `${at}.publishedId`);
  const draftId = draftIdOf(publishedId);
  if (action.document !== undefined) {
    for (const field of ['baseId', 'versionId', 'ifBaseRevisionId']) {
      if (action[field] !== undefined) throw badRequest(`${at} has both document and ${field}: give one or the other`);
    }
    if (!isObject(action.document)) throw badRequest(`${at}.document must be a document object`);
    parseDraftId(action.document._id, `${at}.document._id`, publishedId);
    const attributes = parseDocument(action.document, `${at}.document`, draftId, options);
    return { kind: 'create', type, publishedId, draftId, attributes, ifExists: 'fail', publishedMayExist: true };
  }
  if (action.baseId === undefined) throw badRequest(`${at} needs a document, or a baseId and a versionId`);
  parseDraftId(action.versionId, `${at}.versionId`, publishedId);
  const baseId = action.baseId;
  if (baseId !== publishedId && baseId !== draftId) {
    if (typeof baseId === 'string' && baseId.startsWith(VERSION_PREFIX)) throw badRequest(`${at}.baseId: ${NO_RELEASES}`);
    throw badRequest(`${at}.baseId must be "${publishedId}" (the published document) or its draft "${draftId}"`);
  }
  const ifBaseRevisionId = optionalString(action.ifBaseRevisionId, `${at}.ifBaseRevisionId`);
  return { kind: 'copyToDraft', type, publishedId, draftId, baseId, ...(ifBaseRevisionId === undefined ? {} : { ifBaseRevisionId }) };
}

function parseVersionReplace(action: JsonObject, at: At, options: ParseOptions): DocumentAction {
  if (!isObject(action.document)) throw badRequest(`${at}.document must be a document object with the draft's _id`);
  const draftId = parseAnyDraftId(action.document._id, `${at}.document._id`);
  const attributes = parseDocument(action.document, `${at}.document`, draftId, options);
  return { kind: 'replaceDraft', type: String(action.actionType), publishedId: draftId.slice(DRAFT_PREFIX.length), draftId, attributes, draftMustExist: true };
}

/** A published id: a document id that is neither a draft's nor a release version's. */
function parsePublishedId(value: unknown, at: At): string {
  if (value === undefined) throw badRequest(`${at} is required`);
  if (!isValidDocumentId(value)) throw badRequest(`${at} must be a document id matching ${DOCUMENT_ID_PATTERN}`);
  if (isDraftId(value) || value.startsWith(VERSION_PREFIX)) throw badRequest(`${at} must be a published id, without the "${DRAFT_PREFIX}" or "${VERSION_PREFIX}" prefix`);
  return value;
}

/** The draft id of `publishedId`, as the action must name it. */
function parseDraftId(value: unknown, at: At, publishedId: string): string {
  const draftId = draftIdOf(publishedId);
  if (value === draftId) return draftId;
  if (value === undefined) throw badRequest(`${at} is required ("${draftId}")`);
  if (typeof value === 'string' && value.startsWith(VERSION_PREFIX)) throw badRequest(`${at}: ${NO_RELEASES}; use the draft id "${draftId}"`);
  throw badRequest(`${at} must be "${draftId}", the draft of ${publishedId}`);
}

/** A draft id standing alone (`drafts.<published id>`). */
function parseAnyDraftId(value: unknown, at: At): string {
  if (typeof value === 'string' && value.startsWith(VERSION_PREFIX)) throw badRequest(`${at}: ${NO_RELEASES}; use a draft id (drafts.<id>)`);
  if (!isValidDocumentId(value) || !isDraftId(value)) throw badRequest(`${at} must be a draft id (drafts.<id>)`);
  parsePublishedId(value.slice(DRAFT_PREFIX.length), at);
  return value;
}

/** A document's content for the draft `draftId`: `_type` required, `_id` the draft's when given. */
function parseDocument(value: unknown, at: At, draftId: string, options: ParseOptions): JsonObject {
  if (!isObject(value)) throw badRequest(`${at} must be a document object`);
  if (typeof value._type !== 'string' || value._type.length === 0) throw badRequest(`${at}._type is required (a non-empty string)`);
  if (value._id !== undefined && value._id !== draftId) {
    if (typeof value._id === 'string' && value._id.startsWith(VERSION_PREFIX)) throw badRequest(`${at}._id: ${NO_RELEASES}; use the draft id "${draftId}"`);
    throw badRequest(`${at}._id must be the draft id "${draftId}" (or left out)`);
  }
  requireStorable(value, at);
  return options.autoGenerateArrayKeys ? withArrayKeys(value) : value;
}

function optionalString(value: unknown, at: At): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`${at} must be a string`);
  return value;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
