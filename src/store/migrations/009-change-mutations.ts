import type { Migration } from './index.ts';

// The mutations a transaction applied to each document, as the client sent them, beside the
// document's change-log row: listeners replay them (Sanity Studio's mutator advances its copy of a
// document with `mutations`, not with the whole result). JSON text on both engines, not jsonb:
// jsonb reorders keys, and the order of the paths in a patch's `set` is the order they apply in.
// Null for writes that do not come from mutations (publish, unpublish, restore, scheduled
// publish, import): their events describe the change as a createOrReplace or a delete. The rows
// keep the log's retention, so nothing else has to clean them up.
const sql = () => `ALTER TABLE document_changes ADD COLUMN mutations TEXT;`;

export const changeMutations: Migration = { version: 9, name: 'change-mutations', sql };
