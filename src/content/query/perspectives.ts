import { badRequest } from '../../errors.ts';
import { DRAFT_PREFIX, VERSION_PREFIX } from '../document-ids.ts';

/**
 * Which documents `*` sees (Sanity's perspectives):
 * - raw: every document, drafts and release versions included;
 * - published: published documents only;
 * - stack: for each document, its version in the topmost layer that has one (a release's
 *   `versions.<release>.<id>`, the draft `drafts.<id>`), else the published one, under the
 *   published id with `_originalId` naming the document it came from. `drafts` (and its old name
 *   `previewDrafts`) is the stack of drafts alone.
 */
export type Perspective = { kind: 'raw' } | { kind: 'published' } | { kind: 'stack'; layers: readonly string[] };

export const RAW: Perspective = Object.freeze({ kind: 'raw' });
export const PUBLISHED: Perspective = Object.freeze({ kind: 'published' });

const RELEASE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A `perspective` parameter: `raw`, `published`, `drafts`, `previewDrafts`, or a comma-separated
 * stack, topmost first, of release ids and `drafts` (`published`, always at the bottom, may be named).
 */
export function parsePerspective(text: string): Perspective {
  if (text === 'raw') return RAW;
  if (text === 'published') return PUBLISHED;
  if (text === 'drafts' || text === 'previewDrafts') return { kind: 'stack', layers: [DRAFT_PREFIX] };
  const names = text.split(',').map((name) => name.trim());
  const layers: string[] = [];
  names.forEach((name, index) => {
    if (name === 'published') {
      if (index !== names.length - 1) throw badRequest('perspective: "published" can only be the last (bottom) layer of a stack');
      return;
    }
    if (name === 'drafts') layers.push(DRAFT_PREFIX);
    else if (RELEASE_ID.test(name) && name !== 'raw') layers.push(`${VERSION_PREFIX}${name}.`);
    else throw badRequest(`perspective must be raw, published, drafts, or a comma-separated stack of release ids and drafts (got "${text}")`);
  });
  if (new Set(layers).size !== layers.length) throw badRequest(`perspective names a layer twice: "${text}"`);
  return layers.length === 0 ? PUBLISHED : { kind: 'stack', layers };
}
