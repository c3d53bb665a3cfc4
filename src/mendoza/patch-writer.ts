import { digits } from './json-values.ts';
import { Op, type Patch } from './opcodes.ts';

/**
 * Appends operations to a patch and keeps the patch's approximate length as JSON text, so that
 * a caller can write a diff, compare its cost with a literal, and truncate back if the literal
 * is cheaper.
 */
export class PatchWriter {
  readonly ops: Patch = [];
  size = 0;

  op(code: number): void {
    this.ops.push(code);
    this.size += code < 10 ? 2 : 3;
  }

  int(n: number): void {
    this.ops.push(n);
    this.size += digits(n) + 1;
  }

  string(text: string): void {
    this.ops.push(text);
    this.size += text.length + 3;
  }

  /** A literal JSON value, whose size the caller has measured (jsonSizeAtMost). */
  value(value: unknown, size: number): void {
    this.ops.push(value === undefined ? null : value);
    this.size += size + 1;
  }

  /** Appends what another writer wrote. */
  append(other: PatchWriter): void {
    for (const op of other.ops) this.ops.push(op);
    this.size += other.size;
  }

  truncate(length: number, size: number): void {
    this.ops.length = length;
    this.size = size;
  }
}

/** Where a diff starts: the root (already on both stacks), a field or an element of the input. */
export const Entry = { Root: 0, Field: 1, Element: 2 } as const;
export type EntryKind = (typeof Entry)[keyof typeof Entry];

/**
 * Enter the left value a diff starts from, with the output starting as a copy of it or blank.
 * At the root the input and the output already hold the left document: a copy needs nothing.
 */
export function enter(w: PatchWriter, kind: EntryKind, index: number, copy: boolean): void {
  if (kind === Entry.Root) {
    if (!copy) w.op(Op.Blank);
    return;
  }
  if (kind === Entry.Field) w.op(copy ? Op.PushFieldCopy : Op.PushFieldBlank);
  else w.op(copy ? Op.PushElementCopy : Op.PushElementBlank);
  w.int(index);
}
