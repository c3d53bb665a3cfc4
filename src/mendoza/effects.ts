import { encode } from './encode.ts';
import { isObject } from './json-values.ts';
import type { Patch } from './opcodes.ts';

/** A document change as Sanity describes it (`effects` of a mutation or transaction event). */
export type Effects = {
  /** Turns the document before the change into the document after it. */
  apply: Patch;
  /** Turns the document after the change back into the one before it. */
  revert: Patch;
};

/**
 * The effects of a change from `before` to `after`, either of which may be missing (null or
 * undefined: the document was created or deleted). As Sanity does:
 *
 * - `_rev` is left out of both sides: every consumer (Studio's history and document store,
 *   @sanity/mutator) applies effects to the document without its `_rev` and then sets the new
 *   revision itself. A patch computed with `_rev` would address fields by the wrong index there.
 * - A created document is `{apply: [0, after], revert: [0, null]}`, a deleted one
 *   `{apply: [0, null], revert: [0, before]}`; a missing document after a patch is null, which
 *   the consumers read as "no document".
 */
export function effects(before: unknown, after: unknown): Effects {
  const from = withoutRev(before);
  const to = withoutRev(after);
  return { apply: encode(from, to), revert: encode(to, from) };
}

function withoutRev(document: unknown): unknown {
  if (document === undefined || document === null) return null;
  if (!isObject(document) || !Object.hasOwn(document, '_rev')) return document;
  const { _rev: _omitted, ...rest } = document;
  return rest;
}
