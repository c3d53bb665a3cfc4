import type { JsonObject } from '../../store/index.ts';
import type { PatchOperations } from '../patch/apply-patch.ts';

/** A validated mutation of a transaction. */
export type Mutation =
  | { kind: 'create'; document: JsonObject }
  | { kind: 'createOrReplace'; document: JsonObject & { _id: string } }
  | { kind: 'createIfNotExists'; document: JsonObject & { _id: string } }
  | { kind: 'patch'; id: string; ifRevisionID?: string; operations: PatchOperations }
  | { kind: 'delete'; id: string };

export type MutationKind = Mutation['kind'];

/** What a mutation did to its document: the API's operation values plus `none` for a no-op. */
export type MutationOperation = 'create' | 'update' | 'delete' | 'none';
