import type { Migration } from './index.ts';

// Revisions by the transaction that wrote them: a client may choose a transaction's id (Sanity's
// `transactionId`), and an id already used must be refused, or a document's `_rev` would not
// change on a write and a stale `ifRevisionID` would pass. History reads transactions by id too.
const sql = () => `CREATE INDEX revisions_transaction ON revisions(project_id, dataset, transaction_id);`;

export const transactionIds: Migration = { version: 8, name: 'transaction-ids', sql };
