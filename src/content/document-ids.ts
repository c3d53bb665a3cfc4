import { newId } from '../new-id.ts';

/** Document ids are stored exactly as given; `drafts.x` is the draft of `x`. */
export const DOCUMENT_ID_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$';
const DOCUMENT_ID = new RegExp(DOCUMENT_ID_PATTERN);
export const DRAFT_PREFIX = 'drafts.';
/** A content release's version of a document: `versions.<release>.<id>`. */
export const VERSION_PREFIX = 'versions.';

export function isValidDocumentId(id: unknown): id is string {
  return typeof id === 'string' && DOCUMENT_ID.test(id);
}

export function isDraftId(id: string): boolean {
  return id.startsWith(DRAFT_PREFIX);
}

export function baseIdOf(id: string): string {
  return isDraftId(id) ? id.slice(DRAFT_PREFIX.length) : id;
}

export function draftIdOf(id: string): string {
  return `${DRAFT_PREFIX}${baseIdOf(id)}`;
}

/** `create` without `_id` makes a new draft. */
export function newDraftId(): string {
  return `${DRAFT_PREFIX}${newId()}`;
}

/** The published id a draft or a release version belongs to (`versions.<release>.<id>` -> `<id>`). */
export function publishedIdOf(id: string): string {
  if (isDraftId(id)) return id.slice(DRAFT_PREFIX.length);
  if (!id.startsWith(VERSION_PREFIX)) return id;
  const release = id.indexOf('.', VERSION_PREFIX.length);
  return release === -1 ? id : id.slice(release + 1);
}
