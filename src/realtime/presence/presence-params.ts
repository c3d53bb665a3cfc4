import { RPC_ERRORS, RpcError } from './json-rpc.ts';

/**
 * The params of presence requests, checked and reduced to what Studio reads. Other editors'
 * Studios render these locations (avatars by field, cursors in Portable Text) without checking
 * them, so a malformed one would break presence for everyone: only well-formed locations with
 * their known fields are passed on.
 */

/** A path into a document, as Sanity writes it: field names, indexes, `{_key}` and `[from, to]` ranges. */
export type PathSegment = string | number | { _key: string } | [number | '', number | ''];

export interface SelectionPoint {
  path: PathSegment[];
  offset: number;
}

/** Where an editor is: Studio's PresenceLocation. */
export interface PresenceLocation {
  type: string;
  documentId: string;
  lastActiveAt: string;
  path: PathSegment[];
  /** A Portable Text editor's selection. */
  selection?: { anchor: SelectionPoint; focus: SelectionPoint; backward?: boolean } | null;
}

export interface LocationLimits {
  readonly maxLocations: number;
  /** The state as JSON (the locations and the session id). */
  readonly maxStateBytes: number;
}

/** Studio's session ids are nanoid(16); anything of this shape is accepted. */
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_SHORT_STRING = 256;
const MAX_PATH_SEGMENTS = 64;

const invalid = (message: string) => new RpcError(RPC_ERRORS.INVALID_PARAMS, `Invalid params: ${message}`);

export function sessionIdParam(value: unknown, name: string): string {
  if (typeof value !== 'string' || !SESSION_ID.test(value)) {
    throw invalid(`"${name}" must be a session id (1 to 64 letters, digits, "_", ".", ":" or "-")`);
  }
  return value;
}

/** `presence_announce`'s `{data: {sessionId, locations}}`. */
export function announcement(params: Record<string, unknown>, limits: LocationLimits): { sessionId: string; locations: PresenceLocation[] } {
  const data = params.data;
  if (!isRecord(data)) throw invalid('"data" must be an object {sessionId, locations}');
  const sessionId = sessionIdParam(data.sessionId, 'data.sessionId');
  const given = data.locations ?? [];
  if (!Array.isArray(given)) throw invalid('"data.locations" must be an array');
  if (given.length > limits.maxLocations) throw invalid(`at most ${limits.maxLocations} locations per session`);
  const locations = given.map((location, index) => presenceLocation(location, `data.locations[${index}]`));
  const bytes = Buffer.byteLength(JSON.stringify({ sessionId, locations }));
  if (bytes > limits.maxStateBytes) throw invalid(`the state is ${bytes} bytes as JSON; at most ${limits.maxStateBytes}`);
  return { sessionId, locations };
}

function presenceLocation(value: unknown, where: string): PresenceLocation {
  if (!isRecord(value)) throw invalid(`${where} must be an object {type, documentId, path, lastActiveAt}`);
  const location: PresenceLocation = {
    type: shortString(value.type ?? 'document', `${where}.type`),
    documentId: shortString(value.documentId, `${where}.documentId`),
    lastActiveAt: shortString(value.lastActiveAt ?? new Date().toISOString(), `${where}.lastActiveAt`),
    path: path(value.path ?? [], `${where}.path`),
  };
  if (value.selection === null) location.selection = null;
  else if (value.selection !== undefined) location.selection = selection(value.selection, `${where}.selection`);
  return location;
}

function selection(value: unknown, where: string): NonNullable<PresenceLocation['selection']> {
  if (!isRecord(value)) throw invalid(`${where} must be null or an object {anchor, focus, backward?}`);
  const result: NonNullable<PresenceLocation['selection']> = {
    anchor: selectionPoint(value.anchor, `${where}.anchor`),
    focus: selectionPoint(value.focus, `${where}.focus`),
  };
  if (value.backward !== undefined) {
    if (typeof value.backward !== 'boolean') throw invalid(`${where}.backward must be true or false`);
    result.backward = value.backward;
  }
  return result;
}

function selectionPoint(value: unknown, where: string): SelectionPoint {
  if (!isRecord(value) || !isIndex(value.offset)) throw invalid(`${where} must be an object {path, offset}`);
  return { path: path(value.path, `${where}.path`), offset: value.offset };
}

function path(value: unknown, where: string): PathSegment[] {
  if (!Array.isArray(value) || value.length > MAX_PATH_SEGMENTS) throw invalid(`${where} must be an array of at most ${MAX_PATH_SEGMENTS} segments`);
  return value.map((segment, index): PathSegment => {
    if (typeof segment === 'string') return shortString(segment, `${where}[${index}]`);
    if (isIndex(segment)) return segment;
    if (isRecord(segment) && Object.keys(segment).length === 1 && typeof segment._key === 'string') {
      return { _key: shortString(segment._key, `${where}[${index}]._key`) };
    }
    if (Array.isArray(segment) && segment.length === 2 && segment.every((end) => end === '' || isIndex(end))) {
      return [segment[0], segment[1]] as [number | '', number | ''];
    }
    throw invalid(`${where}[${index}] must be a field name, an index, {"_key": "..."} or [from, to]`);
  });
}

function shortString(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SHORT_STRING) {
    throw invalid(`${where} must be a string of 1 to ${MAX_SHORT_STRING} characters`);
  }
  return value;
}

const isIndex = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
