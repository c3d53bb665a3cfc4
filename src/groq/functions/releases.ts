// releases:: functions (content releases extension).
import { documentsOf } from '../evaluator/documents.ts';
import { isObject } from '../evaluator/values.ts';
import { nullary } from './define.ts';
import type { Namespace } from './types.ts';

export const releasesFunctions: Namespace = {
  /** The release documents of the dataset. */
  all: nullary('dataset', (scope) => documentsOf(scope).filter((doc) => isObject(doc) && doc['_type'] === 'system.release')),
};
