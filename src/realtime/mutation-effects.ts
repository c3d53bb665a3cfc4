import { effects, type Effects } from '../mendoza/index.ts';
import type { StoredDocument } from '../store/index.ts';

/** A change as mendoza patches: `apply` turns the document before into the one after, `revert` back. */
export type MendozaEffects = Effects;

/**
 * The `effects` of a listener event (Sanity's `effectFormat=mendoza`): minimal patches from the
 * encoder in src/mendoza/, on documents without `_rev`, as Sanity's are (Studio applies them to its
 * copies, whose `_rev` it sets itself). A missing document on either side is null.
 */
export function mutationEffects(before: StoredDocument | null, after: StoredDocument | null): MendozaEffects {
  return effects(before, after);
}
