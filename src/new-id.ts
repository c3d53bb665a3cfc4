import { v7 } from 'uuid';

/**
 * A new id for a row the service names itself (a revision, a transaction, a document created
 * without `_id`, a webhook delivery): a UUID whose leading bits are the time (version 7).
 *
 * These ids are keys of B-tree indexes (a document's in five). Random keys put every write on a
 * different leaf page of each index, so a commit wrote a page per index per write; ids that grow
 * with time land together on the rightmost pages, which the writes of one commit share. They stay
 * unique (a counter orders those of one millisecond) with 42 random bits each; they are no secret
 * (access is by role, not by knowing an id) and reveal only their creation time, which the rows
 * they name carry anyway.
 */
export function newId(): string {
  return v7();
}
