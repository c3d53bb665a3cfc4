// Documents cut down to the paths a query reads (fields.ts): what a source may return instead of
// whole documents. A part holds each read path's value where the document has one, inside objects
// and arrays like the document's; array elements not read are holes, which GROQ reads as null
// exactly as it reads a missing element (nothing but the read paths is ever looked at).
import { isObject, setAttribute } from '../evaluator/values.ts';
import type { ReadPath } from './scan-plan.ts';

/** The value at a read path of a document; undefined where the document has none. */
export function valueAtPath(document: unknown, path: ReadPath): unknown {
  let value = document;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(value) || step >= value.length) return undefined;
      value = value[step] as unknown;
    } else {
      if (!isObject(value) || !Object.hasOwn(value, step)) return undefined;
      value = value[step];
    }
  }
  return value;
}

/** Puts a value at a read path of a part of a document, making the objects and arrays on the way. */
export function placeAtPath(part: Record<string, unknown>, path: ReadPath, value: unknown): void {
  let container: Record<string, unknown> | unknown[] = part;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const last = i === path.length - 1;
    const existing = Array.isArray(container) ? container[step as number] : Object.hasOwn(container, step) ? container[step as string] : undefined;
    const wantsArray = !last && typeof path[i + 1] === 'number';
    const next = last ? value : wantsArray ? (Array.isArray(existing) ? existing : []) : isObject(existing) ? existing : {};
    if (next !== existing || last) {
      if (Array.isArray(container)) container[step as number] = next;
      else setAttribute(container, step as string, next);
    }
    if (last) return;
    container = next as Record<string, unknown> | unknown[];
  }
}

/** The paths, once each, without those inside another (reading `a` reads `a.b` and `a[0]`). */
export function outermostPaths<P extends ReadPath>(paths: readonly P[]): P[] {
  const unique = [...new Map(paths.map((path) => [JSON.stringify(path), path])).values()];
  return unique.filter((path) => !unique.some((other) => other.length < path.length && other.every((step, i) => step === path[i])));
}

/** A document cut down to the read paths (and its _id and _type). */
export function partOf(document: unknown, paths: readonly ReadPath[]): unknown {
  if (!isObject(document)) return document;
  const part: Record<string, unknown> = {};
  for (const name of ['_id', '_type']) if (Object.hasOwn(document, name)) part[name] = document[name];
  for (const path of paths) {
    const value = valueAtPath(document, path);
    if (value !== undefined) placeAtPath(part, path, value);
  }
  return part;
}
