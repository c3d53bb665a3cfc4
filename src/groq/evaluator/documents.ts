// How executors reach the data source: the documents of `*` and documents by id for `->`. When
// the source cannot answer synchronously it says PENDING; the run is marked and continues with
// "nothing" (no documents, null), and evaluate() repeats it once the source has loaded.
import { PENDING } from '../source.ts';
import type { Scope } from './scope.ts';

export function documentsOf(scope: Scope): readonly unknown[] {
  const documents = scope.run.source.documents();
  if (documents === PENDING) {
    scope.run.pending = true;
    return [];
  }
  return documents;
}

export function documentById(scope: Scope, id: string): unknown {
  const document = scope.run.source.getDocument(id);
  if (document === PENDING) {
    scope.run.pending = true;
    return null;
  }
  return document;
}
