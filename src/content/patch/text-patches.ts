import { parsePatch, type Patch as TextPatch } from '@sanity/diff-match-patch';
import { badRequest } from '../../errors.ts';

/**
 * Hunks (`@@ ... @@`) of text patches one transaction may apply, and one text patch may hold. A
 * hunk whose text is not where it says is searched for nearby, which takes milliseconds each:
 * 2,000 of them, a 0.1 MB request, held the server's thread for 5 s. Sanity's editors send a hunk
 * or a few per change.
 */
export const MAX_HUNKS_PER_TEXT_PATCH = 100;
export const MAX_HUNKS_PER_TRANSACTION = 1000;

/** A text patch as diff-match-patch writes it, parsed; 400 if it is not one, or is too long. */
export function parseTextPatch(text: string, at: string): TextPatch[] {
  let patches: TextPatch[];
  try {
    patches = parsePatch(text);
  } catch {
    throw badRequest(`${at}: not a valid text patch`);
  }
  if (patches.length > MAX_HUNKS_PER_TEXT_PATCH) {
    throw badRequest(`${at} holds ${patches.length} hunks; a text patch may hold ${MAX_HUNKS_PER_TEXT_PATCH}: set the text instead, or send the hunks in several patches`);
  }
  return patches;
}

/** Counts the hunks of a transaction's text patches as they are parsed, refusing (400) past MAX_HUNKS_PER_TRANSACTION. */
export class HunkCount {
  private total = 0;

  add(patches: Record<string, TextPatch[]> | undefined): void {
    for (const list of Object.values(patches ?? {})) this.total += list.length;
    if (this.total > MAX_HUNKS_PER_TRANSACTION) {
      throw badRequest(`the text patches of this transaction hold more than ${MAX_HUNKS_PER_TRANSACTION} hunks: set the texts instead, or send them in several transactions`);
    }
  }
}
