// Mendoza's opcodes (docs/format.adoc in github.com/sanity-io/mendoza). A patch is one flat JSON
// array: each opcode followed by its parameters. Only the ones the encoder emits are listed; the
// format also has Copy (1), ReturnIntoArray (3), ReturnIntoObject (4), ReturnIntoObjectSameKey (5),
// PushField (6), PushElement (7), PushParent (8) and Pop (9), which the composites below cover.
//
// "Field n" is the n-th key of the input object in sorted order (JavaScript's default sort, the
// order mendoza-js uses); "input" is the value on top of the input stack (the left document or a
// part of it), "output" the value being built on top of the output stack.
export const Op = {
  /** (value): push a literal value as the output. */
  Value: 0,
  /** (): push an empty output, which becomes a string, array or object by what is appended. */
  Blank: 2,
  /** (n): enter field n of the input, output starts as a copy of it. */
  PushFieldCopy: 10,
  /** (n): enter field n of the input, output starts blank. */
  PushFieldBlank: 11,
  /** (j): enter element j of the input array, output starts as a copy of it. */
  PushElementCopy: 12,
  /** (j): enter element j of the input array, output starts blank. */
  PushElementBlank: 13,
  /** (key): store the output into the parent output under `key`, leave the input. */
  ReturnIntoObjectPop: 14,
  /** (): store the output into the parent output under the key it was entered from, leave. */
  ReturnIntoObjectSameKeyPop: 15,
  /** (): append the output to the parent output array, leave the input. */
  ReturnIntoArrayPop: 16,
  /** (value, key): set a field of the output object to a literal. */
  ObjectSetFieldValue: 17,
  /** (n): copy field n of the input object into the output object. */
  ObjectCopyField: 18,
  /** (n): delete field n of the input object from the output object. */
  ObjectDeleteField: 19,
  /** (value): append a literal to the output array. */
  ArrayAppendValue: 20,
  /** (from, to): append elements [from, to) of the input array to the output array. */
  ArrayAppendSlice: 21,
  /** (text): append text to the output string. */
  StringAppendString: 22,
  /** (from, to): append bytes [from, to) (UTF-8 offsets) of the input string to the output string. */
  StringAppendSlice: 23,
} as const;

/** A mendoza patch: opcodes and their parameters in one flat array, as the format's JSON form. */
export type Patch = unknown[];
