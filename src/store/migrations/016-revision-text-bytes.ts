import type { Dialect } from '../sql.ts';
import type { ColumnTypes, Migration } from './index.ts';

// PostgreSQL: each stored revision also holds the length of its JSON text in bytes
// (`content_bytes`), copied from the document's (migration 014) as the revision keeps a copy of
// it. The history is read in steps cut by the lengths of the versions it needs, read first: the
// stored size of jsonb is compressed, and its text length otherwise means reading it whole.
// Revisions kept before this migration have none, and are measured as they are read.
// SQLite reads a value's length in bytes from its record's header (octet_length): no column.
const sql = (_types: ColumnTypes, dialect: Dialect) => (dialect === 'postgres' ? 'ALTER TABLE revisions ADD COLUMN content_bytes BIGINT;' : '');

export const revisionTextBytes: Migration = { version: 16, name: 'revision-text-bytes', sql };
