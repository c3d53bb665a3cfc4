// What the document index stores about one document (see README.md beside this file):
// - value rows: one per scalar leaf reachable through objects (not inside arrays), keyed by its
//   dotted path and an encoding of the value whose byte order is GROQ's order;
// - the shape: every indexed path with its kind (scalar, object, array), hashed; documents that
//   share a shape share one row of document_shapes, and each document's hash is in its
//   document_entries row;
// - references: the ids of the `_ref`s the document holds, as GROQ's references() finds them.
import { createHash } from 'node:crypto';
import { encodeScalar } from './values.ts';
import { referencedIds } from '../../groq/functions/references.ts';

export type PathKind = 's' | 'o' | 'a';

/** A row of document_shapes: a layout of documents, by its hash. */
export interface ShapeInfo {
  hash: string;
  type: string;
  paths: Map<string, PathKind>;
}

export interface IndexEntries {
  /** [path, encoded value] for every indexed scalar leaf. */
  values: [string, string][];
  shape: { hash: string; type: string; paths: string };
  references: string[];
}

/**
 * Whether an attribute name is indexed. Root `_id` and `_type` are columns; `_rev` is never
 * queried; `_key` and `_type` below the root are bookkeeping of arrays and objects. Names with a
 * dot would make dotted paths ambiguous, and quotes or backslashes would need escaping in the JSON
 * paths that read document_entries.vals.
 */
function isIndexedName(name: string, root: boolean): boolean {
  if (name === '' || /["\\.]/.test(name)) return false;
  return root ? name !== '_id' && name !== '_type' && name !== '_rev' : name !== '_type' && name !== '_key';
}

/** Whether an attribute path is indexed. */
export function isIndexedPath(path: readonly string[]): boolean {
  return path.length > 0 && path.every((name, i) => isIndexedName(name, i === 0));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The index entries of a stored document. */
export function indexEntries(document: Record<string, unknown> & { _type: string }): IndexEntries {
  const values: [string, string][] = [];
  const kinds: [string, PathKind][] = [];
  const walk = (object: Record<string, unknown>, prefix: string, root: boolean): void => {
    for (const name of Object.keys(object)) {
      if (!isIndexedName(name, root)) continue;
      const value = object[name];
      const path = root ? name : `${prefix}.${name}`;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        values.push([path, encodeScalar(value)]);
        kinds.push([path, 's']);
      } else if (Array.isArray(value)) {
        kinds.push([path, 'a']);
      } else if (isPlainObject(value)) {
        kinds.push([path, 'o']);
        walk(value, path, false);
      }
      // null: neither defined nor ordered apart from a missing attribute, so not indexed.
    }
  };
  walk(document, '', true);
  kinds.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const paths = JSON.stringify(kinds);
  const hash = createHash('sha1').update(document._type).update('\u0000').update(paths).digest('base64url');
  return { values, shape: { hash, type: document._type, paths }, references: [...referencedIds(document)] };
}

/** A shape's paths as stored in document_shapes.paths. */
export function parseShapePaths(paths: unknown): Map<string, PathKind> {
  const list = (typeof paths === 'string' ? JSON.parse(paths) : paths) as [string, PathKind][];
  return new Map(list);
}
