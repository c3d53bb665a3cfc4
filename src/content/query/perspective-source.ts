import { PENDING, type DocumentSource } from '../../groq/index.ts';
import { DRAFT_PREFIX, baseIdOf, isDraftId } from '../document-ids.ts';
import type { Perspective } from './query-service.ts';

type Doc = { _id: string; [key: string]: unknown };

function idOf(document: unknown): string {
  return (document as Doc)._id;
}

/**
 * Sanity's perspectives over a source: `raw` sees every document; `published` hides drafts;
 * `drafts` (and its old name `previewDrafts`) shows each document's draft in place of its
 * published form, under the published id, with `_originalId` naming the document it came from.
 */
export function withPerspective(inner: DocumentSource, perspective: Perspective | undefined): DocumentSource {
  if (perspective === undefined || perspective === 'raw') return inner;
  if (perspective === 'published') {
    let published: readonly unknown[] | undefined;
    return {
      documents() {
        const all = inner.documents();
        if (all === PENDING) return PENDING;
        published ??= all.filter((document) => !isDraftId(idOf(document)));
        return published;
      },
      getDocument: (id) => (isDraftId(id) ? null : inner.getDocument(id)),
      load: inner.load?.bind(inner),
    };
  }
  let overlaid: readonly unknown[] | undefined;
  const overlay = (document: unknown): unknown => {
    const doc = document as Doc;
    return { ...doc, _id: baseIdOf(doc._id), _originalId: doc._id };
  };
  return {
    documents() {
      const all = inner.documents();
      if (all === PENDING) return PENDING;
      if (!overlaid) {
        const drafts = new Set(all.filter((document) => isDraftId(idOf(document))).map((document) => baseIdOf(idOf(document))));
        overlaid = all
          .filter((document) => isDraftId(idOf(document)) || !drafts.has(idOf(document)))
          .map(overlay)
          .sort((a, b) => ((a as Doc)._id < (b as Doc)._id ? -1 : (a as Doc)._id > (b as Doc)._id ? 1 : 0));
      }
      return overlaid;
    },
    getDocument(id) {
      if (isDraftId(id)) return null;
      const draft = inner.getDocument(`${DRAFT_PREFIX}${id}`);
      if (draft === PENDING) return PENDING;
      if (draft) return overlay(draft);
      const published = inner.getDocument(id);
      return published === PENDING || published === null || published === undefined ? published : overlay(published);
    },
    load: inner.load?.bind(inner),
  };
}
