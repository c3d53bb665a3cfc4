// Mendoza patches (github.com/sanity-io/mendoza): what Sanity Studio reads document changes as.
//
//   import { effects } from '../mendoza/index.ts';
//   effects(before, after)   // {apply, revert}, both minimal patches; before/after may be null
export { effects, type Effects } from './effects.ts';
export { encode } from './encode.ts';
export { Op, type Patch } from './opcodes.ts';
