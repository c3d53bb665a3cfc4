import { writeArrayDiff } from './array-diff.ts';
import { Diff, keepFieldDiff, writeCopyField, writeFieldChange, writeSetField, type DiffResult } from './diff.ts';
import { deepEqual, definedKeys, digits, fieldOf, isObject, jsonSizeAtMost, type JsonObject } from './json-values.ts';
import { Op } from './opcodes.ts';
import { enter, Entry, PatchWriter, type EntryKind } from './patch-writer.ts';

/** What becomes of a field of the right side. */
const Field = { Unchanged: 0, Changed: 1, ArrayDiff: 2, Added: 3 } as const;
type FieldState = (typeof Field)[keyof typeof Field];

/** Above this many removed × added fields, renamed fields are not looked for. */
const MAX_RENAME_COMPARISONS = 1024;

/**
 * Writes `right` from `left`: unchanged fields are kept (the output starts as a copy of the input
 * and removed fields are deleted) or copied one by one into a blank object, whichever is
 * shorter; changed fields recurse; a new field whose value a removed field had is copied from it
 * (a rename); other new fields are literals.
 *
 * Changed fields return under the key they were entered from (ReturnIntoObjectSameKeyPop), not
 * under an explicit key: mendoza-js's incremental patcher, which Studio's history uses, treats
 * a value returned under an explicit key as wholly new and would attribute every unchanged part
 * of it to this change.
 */
export function writeObjectDiff(w: PatchWriter, left: JsonObject, right: JsonObject, kind: EntryKind, index: number): DiffResult {
  const rightKeys = definedKeys(right);
  const leftKeys = definedKeys(left).sort();
  const indexOf = new Map<string, number>();
  for (let i = 0; i < leftKeys.length; i++) indexOf.set(leftKeys[i] as string, i);

  // Each right key's index in the input (-1 when new) and state. Changed arrays are diffed now
  // (a diff finds out whether they changed in the same pass a comparison would take), into
  // writers of their own, since what to write first depends on how many fields are unchanged.
  const sources = new Int32Array(rightKeys.length);
  const states = new Uint8Array(rightKeys.length);
  let arrayDiffs: PatchWriter[] | undefined;
  let scratch: PatchWriter | undefined;
  let unchangedCount = 0;
  let copyFieldsSize = 0;
  for (let i = 0; i < rightKeys.length; i++) {
    const key = rightKeys[i] as string;
    const source = indexOf.get(key) ?? -1;
    sources[i] = source;
    if (source < 0) {
      states[i] = Field.Added;
      continue;
    }
    const from = left[key];
    const to = right[key];
    let state: FieldState = Field.Changed;
    if (from === to) state = Field.Unchanged;
    else if (Array.isArray(from) && Array.isArray(to)) {
      const sub = scratch ?? new PatchWriter();
      const result = writeArrayDiff(sub, from, to, Entry.Field, source);
      if (result === Diff.Unchanged) {
        state = Field.Unchanged;
        scratch = sub;
      } else if (result === Diff.Written) {
        state = Field.ArrayDiff;
        (arrayDiffs ??= [])[i] = sub;
        scratch = undefined;
      }
    } else if (isObject(from) && deepEqual(from, to)) state = Field.Unchanged;
    states[i] = state;
    if (state === Field.Unchanged) {
      unchangedCount++;
      copyFieldsSize += 4 + digits(source);
    }
  }
  const removed: number[] = [];
  let deleteFieldsSize = 0;
  for (let i = 0; i < leftKeys.length; i++) {
    if (fieldOf(right, leftKeys[i] as string) === undefined) {
      removed.push(i);
      deleteFieldsSize += 4 + digits(i);
    }
  }
  if (removed.length === 0 && unchangedCount === rightKeys.length) return Diff.Unchanged;
  // {} as a literal is shortest, and a blank output with nothing written would become null.
  if (rightKeys.length === 0) return Diff.Literal;

  const copy = deleteFieldsSize <= copyFieldsSize;
  enter(w, kind, index, copy);
  if (copy) {
    for (const i of removed) {
      w.op(Op.ObjectDeleteField);
      w.int(i);
    }
  }
  const renames = removed.length > 0 && removed.length * (rightKeys.length - leftKeys.length + removed.length) <= MAX_RENAME_COMPARISONS;
  for (let i = 0; i < rightKeys.length; i++) {
    const key = rightKeys[i] as string;
    const source = sources[i] as number;
    switch (states[i]) {
      case Field.Unchanged:
        if (!copy) writeCopyField(w, source);
        break;
      case Field.ArrayDiff: {
        const length = w.ops.length;
        const size = w.size;
        w.append(arrayDiffs?.[i] as PatchWriter);
        keepFieldDiff(w, length, size, right[key], key);
        break;
      }
      case Field.Changed:
        writeFieldChange(w, left[key], right[key], key, source);
        break;
      default:
        if (!(renames && writeRenamedField(w, left, leftKeys, removed, right[key], key))) writeSetField(w, key, right[key]);
    }
  }
  return Diff.Written;
}

/** Copies the value of a removed field under its new key, if one had it and that is shorter. */
function writeRenamedField(w: PatchWriter, left: JsonObject, leftKeys: string[], removed: number[], value: unknown, key: string): boolean {
  if (typeof value !== 'object' && (typeof value !== 'string' || value.length < 4)) return false;
  for (const i of removed) {
    if (!deepEqual(left[leftKeys[i] as string], value)) continue;
    if (jsonSizeAtMost(value, 4 + digits(i)) <= 4 + digits(i)) return false;
    w.op(Op.PushFieldCopy);
    w.int(i);
    w.op(Op.ReturnIntoObjectPop);
    w.string(key);
    return true;
  }
  return false;
}
