import { PENDING, type Constraint, type DocumentSource, type FieldPath, type ScanAnswer, type ScanRequest } from '../../groq/index.ts';
import { publishedIdOf } from '../document-ids.ts';
import type { Perspective } from './perspectives.ts';

type Doc = { _id: string; [key: string]: unknown };

/** What the published perspective adds to every scan: no drafts (`drafts.**`), no release versions (`versions.**`). */
const NOT_PUBLISHED = ['drafts.**', 'versions.**'].map((pattern): Constraint => ({ kind: 'not', operand: { kind: 'match-path', path: ['_id'], pattern } }));

function idOf(document: unknown): string {
  return (document as Doc)._id;
}

function isPublishedId(id: string): boolean {
  return publishedIdOf(id) === id;
}

function publishedOnly(request: ScanRequest): ScanRequest {
  return {
    ...request,
    constraints: [...request.constraints, ...NOT_PUBLISHED],
    constraintFields: [...request.constraintFields, ...NOT_PUBLISHED.map(() => [['_id']])],
  };
}

/** The answer to the request without the added constraints (the documents they keep out dropped here if the source left them). */
function withoutUnpublished(answer: ScanAnswer): ScanAnswer {
  const added = answer.applied.length - NOT_PUBLISHED.length;
  const applied = answer.applied.slice(0, added);
  if (answer.applied.slice(added).every(Boolean) || !answer.documents) return { ...answer, applied };
  return { ...answer, applied, documents: answer.documents.filter((document) => isPublishedId(idOf(document))) };
}

/**
 * Sanity's perspectives over a source (perspectives.ts). Published keeps scans planned: the
 * source drops drafts and versions with the rest of the filter. A stack reads the dataset whole
 * and overlays it (a document's topmost version, under its published id).
 */
export function withPerspective(inner: DocumentSource, perspective: Perspective): DocumentSource {
  if (perspective.kind === 'raw') return inner;
  if (perspective.kind === 'published') return publishedSource(inner);
  return stackedSource(inner, perspective.layers);
}

function publishedSource(inner: DocumentSource): DocumentSource {
  let published: readonly unknown[] | undefined;
  return {
    documents() {
      const all = inner.documents();
      if (all === PENDING) return PENDING;
      published ??= all.filter((document) => isPublishedId(idOf(document)));
      return published;
    },
    getDocument: (id) => (isPublishedId(id) ? inner.getDocument(id) : null),
    load: inner.load?.bind(inner),
    ...(inner.scan && {
      scan: (request: ScanRequest) => {
        const answer = inner.scan!(publishedOnly(request));
        return answer === PENDING ? PENDING : withoutUnpublished(answer);
      },
    }),
    ...(inner.pages && {
      pages: async function* (request: ScanRequest) {
        for await (const answer of inner.pages!(publishedOnly(request))) yield withoutUnpublished(answer);
      },
    }),
    // The source says values only where it applied every constraint, these too.
    ...(inner.values && { values: (request: ScanRequest, path: FieldPath) => inner.values!(publishedOnly(request), path) }),
    ...(inner.firstValues && { firstValues: (request: ScanRequest, path: FieldPath) => inner.firstValues!(publishedOnly(request), path) }),
    ...(inner.numbers && { numbers: (request: ScanRequest, path: FieldPath) => inner.numbers!(publishedOnly(request), path) }),
  };
}

function stackedSource(inner: DocumentSource, layers: readonly string[]): DocumentSource {
  // Topmost first; the published document (no prefix) is always the bottom layer.
  const prefixes = [...layers, ''];
  const rank = (id: string) => prefixes.indexOf(id.slice(0, id.length - publishedIdOf(id).length));
  const overlay = (document: unknown): unknown => {
    const doc = document as Doc;
    return { ...doc, _id: publishedIdOf(doc._id), _originalId: doc._id };
  };
  let overlaid: readonly unknown[] | undefined;
  return {
    documents() {
      const all = inner.documents();
      if (all === PENDING) return PENDING;
      if (!overlaid) {
        const chosen = new Map<string, { document: unknown; rank: number }>();
        for (const document of all) {
          const id = idOf(document);
          const layer = rank(id);
          if (layer === -1) continue;
          const published = publishedIdOf(id);
          const current = chosen.get(published);
          if (!current || layer < current.rank) chosen.set(published, { document, rank: layer });
        }
        overlaid = [...chosen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, { document }]) => overlay(document));
      }
      return overlaid;
    },
    getDocument(id) {
      if (!isPublishedId(id)) return null;
      // Every layer is asked in the same round, so one load fetches them all.
      const found = prefixes.map((prefix) => inner.getDocument(`${prefix}${id}`));
      if (found.includes(PENDING)) return PENDING;
      const top = found.find((document) => document !== null && document !== undefined);
      return top === undefined ? null : overlay(top);
    },
    load: inner.load?.bind(inner),
  };
}
