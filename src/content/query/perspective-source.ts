import { PENDING, type Constraint, type DocumentSource, type ScanAnswer, type ScanRequest } from '../../groq/index.ts';
import { DRAFT_PREFIX, baseIdOf, isDraftId } from '../document-ids.ts';
import type { Perspective } from './query-service.ts';

type Doc = { _id: string; [key: string]: unknown };

/** `!(_id in path("drafts.**"))`, which the published perspective adds to every scan. */
const PUBLISHED: Constraint = { kind: 'not', operand: { kind: 'match-path', path: ['_id'], pattern: 'drafts.**' } };

function publishedOnly(request: ScanRequest): ScanRequest {
  return { ...request, constraints: [...request.constraints, PUBLISHED], constraintFields: [...request.constraintFields, [['_id']]] };
}

/** The answer to the request without the added constraint (its drafts dropped here if the source left them). */
function withoutDrafts(answer: ScanAnswer): ScanAnswer {
  const applied = answer.applied.slice(0, -1);
  if (answer.applied[answer.applied.length - 1] || !answer.documents) return { ...answer, applied };
  return { ...answer, applied, documents: answer.documents.filter((document) => !isDraftId(idOf(document))) };
}

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
      // Scans stay planned: the source drops the drafts with the rest of the filter.
      ...(inner.scan && {
        scan: (request: ScanRequest) => {
          const answer = inner.scan!(publishedOnly(request));
          return answer === PENDING ? PENDING : withoutDrafts(answer);
        },
      }),
      ...(inner.pages && {
        pages: async function* (request: ScanRequest) {
          for await (const answer of inner.pages!(publishedOnly(request))) yield withoutDrafts(answer);
        },
      }),
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
