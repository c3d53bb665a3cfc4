import { badRequest } from '../../errors.ts';
import type { JsonObject } from '../../store/index.ts';
import { isValidDocumentId, DOCUMENT_ID_PATTERN } from '../document-ids.ts';
import { requireStorable } from '../document-rules.ts';
import { checkTransactionSteps } from '../transactions.ts';
import { HunkCount, parseTextPatch } from '../patch/text-patches.ts';
import type { Patch as TextPatch } from '@sanity/diff-match-patch';
import { setOwn } from '../../json/own-properties.ts';
import type { InsertOperation, PatchOperations } from '../patch/apply-patch.ts';
import { parsePath } from '../patch/path.ts';
import type { Mutation, MutationKind } from './mutation.ts';

const KINDS: readonly MutationKind[] = ['create', 'createOrReplace', 'createIfNotExists', 'patch', 'delete'];
const PATCH_OPERATION_KEYS: ReadonlySet<string> = new Set(['ifRevisionID', 'set', 'setIfMissing', 'unset', 'inc', 'dec', 'insert', 'diffMatchPatch']);
const PATCH_KEYS: ReadonlySet<string> = new Set(['id', ...PATCH_OPERATION_KEYS]);
const INSERT_POSITIONS = ['before', 'after', 'replace'] as const;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a request's `mutations` array; every message names the mutation by its index. */
export function parseMutations(input: unknown): Mutation[] {
  if (!Array.isArray(input)) throw badRequest('mutations must be an array');
  if (input.length === 0) throw badRequest('mutations must contain at least one mutation');
  checkTransactionSteps(input, 'mutations');
  const hunks = new HunkCount();
  return input.map((item, index) => {
    const mutation = parseMutation(item, `mutations[${index}]`);
    if (mutation.kind === 'patch') hunks.add(mutation.operations.diffMatchPatch);
    return mutation;
  });
}

function parseMutation(item: unknown, where: string): Mutation {
  if (!isObject(item)) throw badRequest(`${where} must be an object with one of: ${KINDS.join(', ')}`);
  const keys = Object.keys(item);
  if (keys.length === 0) throw badRequest(`${where} is empty: it needs one of ${KINDS.join(', ')}`);
  if (keys.length > 1) throw badRequest(`${where} has ${keys.length} keys (${keys.join(', ')}); a mutation has exactly one`);
  const kind = keys[0] as MutationKind;
  if (!KINDS.includes(kind)) throw badRequest(`${where} has the unknown operation "${keys[0]}"; use one of ${KINDS.join(', ')}`);
  const body = item[kind];
  const at = `${where}.${kind}`;
  switch (kind) {
    case 'create':
      return { kind, document: parseDocument(body, at, false) };
    case 'createOrReplace':
    case 'createIfNotExists':
      return { kind, document: parseDocument(body, at, true) as JsonObject & { _id: string } };
    case 'delete': {
      if (!isObject(body)) throw badRequest(`${at} must be an object {id}`);
      return { kind, id: parseId(body.id, `${at}.id`) };
    }
    case 'patch':
      return parsePatch(body, at);
  }
}

function parseId(id: unknown, at: string): string {
  if (id === undefined) throw badRequest(`${at} is required`);
  if (!isValidDocumentId(id)) throw badRequest(`${at} must be a document id matching ${DOCUMENT_ID_PATTERN}`);
  return id;
}

function parseDocument(value: unknown, at: string, idRequired: boolean): JsonObject {
  if (!isObject(value)) throw badRequest(`${at} must be a document object`);
  if (typeof value._type !== 'string' || value._type.length === 0) throw badRequest(`${at}._type is required (a non-empty string)`);
  if (value._id !== undefined || idRequired) parseId(value._id, `${at}._id`);
  requireStorable(value, at);
  return value;
}

function parsePatch(value: unknown, at: string): Mutation {
  if (!isObject(value)) throw badRequest(`${at} must be an object {id, set, ...}`);
  const id = parseId(value.id, `${at}.id`);
  return { kind: 'patch', id, ...parsePatchOperations(value, at, PATCH_KEYS) };
}

/** A patch's operations and `ifRevisionID`; `allowed` are the keys it may have (the operations' and its target's). */
export function parsePatchOperations(value: JsonObject, at: string, allowed: ReadonlySet<string> = PATCH_OPERATION_KEYS): { ifRevisionID?: string; operations: PatchOperations } {
  // A patch naming more paths than a document may hold is refused before any of it is applied.
  requireStorable(value, at);
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) {
      throw badRequest(`${at} has the unknown key "${key}"; use ${[...allowed].join(', ')}`);
    }
  }
  if (value.ifRevisionID !== undefined && typeof value.ifRevisionID !== 'string') throw badRequest(`${at}.ifRevisionID must be a string`);
  const operations: PatchOperations = {};
  for (const key of ['set', 'setIfMissing'] as const) {
    if (value[key] === undefined) continue;
    operations[key] = pathMap(value[key], `${at}.${key}`);
  }
  for (const key of ['inc', 'dec'] as const) {
    if (value[key] === undefined) continue;
    const amounts = pathMap(value[key], `${at}.${key}`);
    for (const [path, amount] of Object.entries(amounts)) {
      if (typeof amount !== 'number' || !Number.isFinite(amount)) throw badRequest(`${at}.${key}["${path}"] must be a number`);
    }
    operations[key] = amounts as Record<string, number>;
  }
  if (value.unset !== undefined) {
    if (!Array.isArray(value.unset) || !value.unset.every((path) => typeof path === 'string')) {
      throw badRequest(`${at}.unset must be an array of paths`);
    }
    for (const path of value.unset) parsePath(path);
    operations.unset = value.unset;
  }
  if (value.insert !== undefined) operations.insert = parseInsert(value.insert, `${at}.insert`);
  if (value.diffMatchPatch !== undefined) {
    const texts = pathMap(value.diffMatchPatch, `${at}.diffMatchPatch`);
    const patches: Record<string, TextPatch[]> = {};
    for (const [path, text] of Object.entries(texts)) {
      if (typeof text !== 'string') throw badRequest(`${at}.diffMatchPatch["${path}"] must be a text patch (a string)`);
      setOwn(patches, path, parseTextPatch(text, `${at}.diffMatchPatch["${path}"]`));
    }
    operations.diffMatchPatch = patches;
  }
  return { ...(typeof value.ifRevisionID === 'string' ? { ifRevisionID: value.ifRevisionID } : {}), operations };
}

function pathMap(value: unknown, at: string): JsonObject {
  if (!isObject(value)) throw badRequest(`${at} must be an object of path: value`);
  for (const path of Object.keys(value)) parsePath(path);
  return value;
}

function parseInsert(value: unknown, at: string): InsertOperation {
  if (!isObject(value)) throw badRequest(`${at} must be an object {before|after|replace, items}`);
  const positions = INSERT_POSITIONS.filter((position) => value[position] !== undefined);
  if (positions.length !== 1) throw badRequest(`${at} needs exactly one of before, after, replace`);
  const position = positions[0]!;
  const path = value[position];
  if (typeof path !== 'string') throw badRequest(`${at}.${position} must be a path`);
  parsePath(path);
  if (!Array.isArray(value.items)) throw badRequest(`${at}.items must be an array`);
  return { position, path, items: value.items };
}
