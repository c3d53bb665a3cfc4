import type { StoredDocument } from '../store/index.ts';

/** A change as mendoza patches: `apply` turns the document before into the one after, `revert` back. */
export interface MendozaEffects {
  apply: unknown[];
  revert: unknown[];
}

/**
 * The `effects` of a listener event (Sanity's `effectFormat=mendoza`). Patches work on documents
 * without `_rev`, as Sanity's do: Studio applies them to its copies, whose `_rev` it sets itself.
 * Until the encoder in src/mendoza/ lands this is the trivial valid encoding, opcode 0 (Value):
 * each side is replaced whole, which every mendoza reader applies correctly.
 */
export function mutationEffects(before: StoredDocument | null, after: StoredDocument | null): MendozaEffects {
  return { apply: [0, withoutRev(after)], revert: [0, withoutRev(before)] };
}

function withoutRev(document: StoredDocument | null): Omit<StoredDocument, '_rev'> | null {
  if (!document) return null;
  const { _rev: _ignored, ...rest } = document;
  return rest;
}
