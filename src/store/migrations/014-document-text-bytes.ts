import type { Dialect } from '../sql.ts';
import type { ColumnTypes, Migration } from './index.ts';

// PostgreSQL: each document also holds the length of its JSON text in bytes (`content_bytes`),
// which pages of whole documents are cut by (stored-size-pages.ts) without reading the documents.
// pg_column_size, used before, is the size as stored, compressed: documents of repetitive text
// compress tens of times, so a page of "8 MB" was hundreds of MB of text, and an export of them
// took the server past its heap limit. The column is generated, so every writer (imports
// included) fills it; adding it rewrites the table once.
// SQLite stores binary JSON uncompressed, about as long as its text: length(content) serves.
const sql = (_types: ColumnTypes, dialect: Dialect) =>
  dialect === 'postgres' ? `ALTER TABLE documents ADD COLUMN content_bytes INTEGER GENERATED ALWAYS AS (octet_length(content::text)) STORED;` : '';

export const documentTextBytes: Migration = { version: 14, name: 'document-text-bytes', sql };
