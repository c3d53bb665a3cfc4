import { Diff, writeDiff } from './diff.ts';
import { jsonSizeAtMost } from './json-values.ts';
import { Op, type Patch } from './opcodes.ts';
import { Entry, PatchWriter } from './patch-writer.ts';

/**
 * A mendoza patch that turns `left` into `right` (applyPatch(left, patch) deep-equals right;
 * object key order is not kept, see README.md). Unchanged parts are copied from `left`, not
 * sent. Literal values in the patch are `right`'s own objects, not copies: treat the patch as
 * read-only, and serialize it before changing `right`. undefined is handled as null, and fields
 * whose value is undefined as absent (as JSON.stringify does).
 */
export function encode(left: unknown, right: unknown): Patch {
  const w = new PatchWriter();
  const result = writeDiff(w, left ?? null, right ?? null, Entry.Root, 0);
  if (result === Diff.Unchanged) return [];
  // Value: opcode, value.
  if (result === Diff.Written && w.size <= 2 + jsonSizeAtMost(right, w.size) + 1) return w.ops;
  return [Op.Value, right ?? null];
}
