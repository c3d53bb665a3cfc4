// sanity:: functions: the project the query runs in, and how document ids name drafts and
// release versions (`drafts.<id>`, `versions.<release>.<id>`).
import { isObject } from '../evaluator/values.ts';
import { nullary } from './define.ts';
import type { GroqFunction, Namespace } from './types.ts';

/** A function of the current document's _id and one string argument; null when either is missing. */
function ofDocumentId(test: (documentId: string, arg: string) => boolean): GroqFunction {
  return {
    arity: [1, 1],
    reads: 'this',
    compile([arg]) {
      if (!arg) throw new Error('BUG: argument missing after the arity check');
      return (scope) => {
        const value = arg(scope);
        const doc = scope.value;
        if (typeof value !== 'string' || !isObject(doc)) return null;
        const id = doc['_id'];
        return typeof id === 'string' ? test(id, value) : null;
      };
    },
  };
}

export const sanityFunctions: Namespace = {
  projectId: nullary('context', (scope) => scope.run.project?.projectId ?? null),
  dataset: nullary('context', (scope) => scope.run.project?.dataset ?? null),
  /** Is the current document the published document, the draft or a release version of `baseId`? */
  versionOf: ofDocumentId((id, baseId) => {
    if (id === baseId) return true;
    const parts = id.split('.');
    if (parts[0] === 'drafts' && parts.length >= 2) return parts.slice(1).join('.') === baseId;
    if (parts[0] === 'versions' && parts.length >= 3) return parts.slice(2).join('.') === baseId;
    return false;
  }),
  /** Is the current document a version in the release `releaseId`? */
  partOfRelease: ofDocumentId((id, releaseId) => {
    const parts = id.split('.');
    return parts.length >= 3 && parts[0] === 'versions' && parts[1] === releaseId;
  }),
};
