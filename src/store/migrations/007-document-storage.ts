import type { Dialect } from '../sql.ts';
import type { Migration } from './index.ts';

// Documents stored so that a query reads a few fields of them without decoding them whole.
// SQLite: as its binary JSON (JSONB), which json_extract and `->` read without parsing the whole
// document, and json() turns back into text no slower than the text was read. The column keeps its declared
// type (SQLite stores the BLOB as it is); readers use json(), which reads rows that still hold
// text too; revisions copied before this migration keep theirs.
// PostgreSQL: jsonb compressed with lz4 rather than pglz, which decompresses several times faster
// for a little more space (measurements: docs/decisions.md). It applies
// to documents written from now on. A server built without lz4 (or before PostgreSQL 14) keeps pglz.
const sql = (_types: unknown, dialect: Dialect) =>
  dialect === 'sqlite'
    ? `UPDATE documents SET content = jsonb(content) WHERE typeof(content) = 'text';`
    : `DO $$ BEGIN EXECUTE 'ALTER TABLE documents ALTER COLUMN content SET COMPRESSION lz4'; EXCEPTION WHEN feature_not_supported OR syntax_error THEN NULL; END $$;`;

export const documentStorage: Migration = { version: 7, name: 'document-storage', sql };
