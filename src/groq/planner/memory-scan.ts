// Scan requests answered in memory: the reference for what a source must return, used by
// createMemorySource. Candidates come from maps by _id, _type and referenced id when a constraint
// allows it; every constraint is then evaluated with GROQ's semantics (constraints.ts), so all are
// applied exactly, and complete requests are ordered, windowed and counted here.
import { orderCompare } from '../evaluator/compare.ts';
import { isObject } from '../evaluator/values.ts';
import { referencedIds } from '../functions/references.ts';
import { evaluateConstraint, readPath } from './constraints.ts';
import { partOf } from './read-paths.ts';
import type { Constraint, FieldPath, NumberSummary, ScanAnswer, ScanRequest } from './scan-plan.ts';

export type MemoryScanOptions = {
  /**
   * Return documents holding only the fields the request reads (copies): slower, but it checks
   * the planner's field analysis the way a database source uses it. For tests.
   */
  prune?: boolean;
  /** Documents per page of a streamed query (default 1000); tests make it small. */
  pageSize?: number;
};

/** Maps from values to the documents that have them, in dataset order, built when first needed. */
export class MemoryIndexes {
  private readonly documents: readonly unknown[];
  private readonly byField = new Map<string, Map<unknown, unknown[]>>();
  private byReference: Map<string, unknown[]> | undefined;

  constructor(documents: readonly unknown[]) {
    this.documents = documents;
  }

  /** Documents whose top-level `field` is the string `value`. */
  withField(field: '_id' | '_type', value: string): readonly unknown[] {
    let map = this.byField.get(field);
    if (!map) {
      map = new Map();
      for (const doc of this.documents) {
        const v = isObject(doc) ? doc[field] : undefined;
        if (typeof v !== 'string') continue;
        const list = map.get(v);
        if (list) list.push(doc);
        else map.set(v, [doc]);
      }
      this.byField.set(field, map);
    }
    return map.get(value) ?? [];
  }

  referencing(id: string): readonly unknown[] {
    if (!this.byReference) {
      this.byReference = new Map();
      for (const doc of this.documents) {
        for (const target of referencedIds(doc)) {
          const list = this.byReference.get(target);
          if (list) list.push(doc);
          else this.byReference.set(target, [doc]);
        }
      }
    }
    return this.byReference.get(id) ?? [];
  }

  /** A small superset of the documents satisfying `constraint`, in dataset order; null if none is known. */
  candidates(constraint: Constraint): readonly unknown[] | null {
    if (constraint.kind === 'compare' && constraint.op === '==' && constraint.path.length === 1 && typeof constraint.value === 'string') {
      const field = constraint.path[0];
      if (field === '_id' || field === '_type') return this.withField(field, constraint.value);
    }
    if (constraint.kind === 'references' && constraint.ids.length === 1) return this.referencing(constraint.ids[0]!);
    return null;
  }
}

export function scanMemory(documents: readonly unknown[], indexes: MemoryIndexes, request: ScanRequest, options: MemoryScanOptions): ScanAnswer {
  let candidates: readonly unknown[] = documents;
  for (const constraint of request.constraints) {
    const narrowed = indexes.candidates(constraint);
    if (narrowed && narrowed.length < candidates.length) candidates = narrowed;
  }
  const constraints = request.constraints;
  let matching = constraints.length === 0 ? candidates : candidates.filter((doc) => constraints.every((c) => evaluateConstraint(c, doc) === true));
  const applied = constraints.map(() => true);
  if (request.complete && request.count) return { count: matching.length, applied, windowed: false };
  let windowed = false;
  if (request.complete && request.window) {
    const order = request.order;
    if (order) {
      const keys = order.map((term) => matching.map((doc) => readPath(doc, term.path)));
      const positions = Array.from(matching, (_, i) => i);
      positions.sort((a, b) => {
        for (let t = 0; t < order.length; t++) {
          const result = orderCompare(keys[t]![a], keys[t]![b]);
          if (result !== 0) return order[t]!.descending ? -result : result;
        }
        return a - b;
      });
      matching = positions.map((i) => matching[i]);
    }
    matching = matching.slice(request.window.start, request.window.end);
    windowed = true;
  }
  if (options.prune) {
    const fields = request.fields;
    if (fields) matching = matching.map((doc) => partOf(doc, fields));
  }
  return { documents: matching, applied, windowed };
}

/**
 * An answer split into pages, as a streamed query reads it. An unordered request gets its
 * documents backwards: a source may hand them out in any order, and the evaluator must not mind.
 */
export async function* pagesOf(answer: ScanAnswer, pageSize: number, unordered = false): AsyncGenerator<ScanAnswer> {
  const reordered = unordered && answer.documents !== undefined && answer.documents.length > 1;
  const documents = reordered ? [...answer.documents!].reverse() : answer.documents;
  if (!documents) {
    yield answer;
    return;
  }
  for (let start = 0; start === 0 || start < documents.length; start += pageSize) {
    yield { ...answer, documents: documents.slice(start, start + pageSize), ...(reordered ? { reordered } : {}) };
  }
}

/** The values at `path` of an answer's documents without nulls, backwards: the order an unordered request may get. */
function valuesBackwards(answer: ScanAnswer, path: FieldPath): unknown[] {
  return (answer.documents ?? []).map((document) => readPath(document, path)).filter((value) => value !== null).reverse();
}

/**
 * The values at `path` of an answer's documents, as an aggregate of them reads them
 * (DocumentSource.values): nulls left out, backwards like an unordered request's pages, a page at
 * a time.
 */
export async function* valuePagesOf(answer: ScanAnswer, path: FieldPath, pageSize: number): AsyncGenerator<unknown[]> {
  const values = valuesBackwards(answer, path);
  for (let start = 0; start === 0 || start < values.length; start += pageSize) yield values.slice(start, start + pageSize);
}

/** The first occurrence of each value at `path` of an answer's documents (DocumentSource.firstValues). */
export function firstValuesOf(answer: ScanAnswer, path: FieldPath): unknown[] | null {
  const values = (answer.documents ?? []).map((document) => readPath(document, path));
  // A Set keeps the first of equal simple values (0 and -0 too), in order.
  return values.some((value) => typeof value === 'object' && value !== null) ? null : [...new Set(values)];
}

/** A summary of the numbers at `path` of an answer's documents (DocumentSource.numbers), added backwards like an unordered request's pages. */
export function numberSummaryOf(answer: ScanAnswer, path: FieldPath): NumberSummary {
  const values = valuesBackwards(answer, path);
  if (values.some((value) => typeof value !== 'number')) return { kind: 'mixed' };
  const numbers = values as number[];
  let sum = 0;
  let magnitude = 0;
  let min: number | null = null;
  let max: number | null = null;
  let fractions = 0;
  for (const n of numbers) {
    sum += n;
    magnitude += Math.abs(n);
    if (min === null || n < min) min = n;
    if (max === null || n > max) max = n;
    if (!Number.isInteger(n)) fractions++;
  }
  return { kind: 'numbers', count: numbers.length, sum, min, max, magnitude, fractions };
}
