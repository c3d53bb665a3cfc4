// Shared by the GROQ unit tests.
import { evaluate, type EvaluateOptions } from '../../src/groq/index.ts';

export const DOCS = [
  { _id: 'a1', _type: 'author', name: 'Ada', age: 36, tags: ['math', 'code'] },
  { _id: 'a2', _type: 'author', name: 'Grace', age: 85, tags: ['navy', 'code'] },
  { _id: 'p1', _type: 'post', title: 'Engines', author: { _ref: 'a1' }, views: 10, refs: [{ _ref: 'a1' }, { _ref: 'a2' }] },
  { _id: 'p2', _type: 'post', title: 'Compilers', author: { _ref: 'a2' }, views: 30, refs: [] },
  { _id: 'drafts.p3', _type: 'post', title: 'Draft', author: { _ref: 'missing' }, views: null },
];

/** Evaluates against DOCS unless another dataset is given. */
export function run(query: string, options: EvaluateOptions = {}): Promise<unknown> {
  return evaluate(query, { dataset: DOCS, ...options });
}
