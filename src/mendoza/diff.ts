// The recursion: a changed value is written as a diff against its left side when that is
// shorter than the literal, otherwise as the literal.
import { writeArrayDiff } from './array-diff.ts';
import { isObject, jsonSizeAtMost } from './json-values.ts';
import { writeObjectDiff } from './object-diff.ts';
import { Op } from './opcodes.ts';
import { Entry, type EntryKind, type PatchWriter } from './patch-writer.ts';
import { writeStringDiff } from './string-diff.ts';

/** What a diff wrote: nothing as the two are equal, a diff, or nothing as only a literal will do. */
export const Diff = { Unchanged: 0, Written: 1, Literal: 2 } as const;
export type DiffResult = (typeof Diff)[keyof typeof Diff];

/**
 * Writes operations that enter `left` (see `enter`) and leave `right` as the output. Writes
 * nothing when the two are equal (Unchanged) or cannot be diffed (Literal: other types, numbers).
 */
export function writeDiff(w: PatchWriter, left: unknown, right: unknown, kind: EntryKind, index: number): DiffResult {
  if (left === right) return Diff.Unchanged;
  if (typeof left === 'string') return typeof right === 'string' && writeStringDiff(w, left, right, kind, index) ? Diff.Written : Diff.Literal;
  if (Array.isArray(left)) return Array.isArray(right) ? writeArrayDiff(w, left, right, kind, index) : Diff.Literal;
  if (isObject(left)) return isObject(right) ? writeObjectDiff(w, left, right, kind, index) : Diff.Literal;
  return Diff.Literal;
}

/** Field `key` (sorted index `index` in the input object) changed from `left` to `right`. */
export function writeFieldChange(w: PatchWriter, left: unknown, right: unknown, key: string, index: number): void {
  const length = w.ops.length;
  const size = w.size;
  const result = writeDiff(w, left, right, Entry.Field, index);
  if (result === Diff.Unchanged) writeCopyField(w, index);
  else if (result === Diff.Literal) writeSetField(w, key, right);
  else keepFieldDiff(w, length, size, right, key);
}

/**
 * A diff of field `key` has been written since the writer was at (length, size): it returns
 * into the field, unless setting the field to the literal is no longer.
 */
export function keepFieldDiff(w: PatchWriter, length: number, size: number, right: unknown, key: string): void {
  w.op(Op.ReturnIntoObjectSameKeyPop);
  const diffSize = w.size - size;
  // ObjectSetFieldValue: opcode, value, key.
  if (diffSize <= 3 + key.length + 3 + jsonSizeAtMost(right, diffSize) + 1) return;
  w.truncate(length, size);
  writeSetField(w, key, right);
}

export function writeCopyField(w: PatchWriter, index: number): void {
  w.op(Op.ObjectCopyField);
  w.int(index);
}

export function writeSetField(w: PatchWriter, key: string, value: unknown): void {
  w.op(Op.ObjectSetFieldValue);
  w.value(value, jsonSizeAtMost(value, Infinity));
  w.string(key);
}

/** An output element made from input element `index`, changed from `left` to `right`. */
export function writeElementChange(w: PatchWriter, left: unknown, right: unknown, index: number): void {
  const length = w.ops.length;
  const size = w.size;
  const result = writeDiff(w, left, right, Entry.Element, index);
  if (result === Diff.Unchanged) {
    w.op(Op.ArrayAppendSlice);
    w.int(index);
    w.int(index + 1);
    return;
  }
  if (result === Diff.Written) {
    w.op(Op.ReturnIntoArrayPop);
    const diffSize = w.size - size;
    // ArrayAppendValue: opcode, value.
    if (diffSize <= 3 + jsonSizeAtMost(right, diffSize) + 1) return;
    w.truncate(length, size);
  }
  writeAppendValue(w, right);
}

export function writeAppendValue(w: PatchWriter, value: unknown): void {
  w.op(Op.ArrayAppendValue);
  w.value(value, jsonSizeAtMost(value, Infinity));
}
