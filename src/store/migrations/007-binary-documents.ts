import type { ColumnTypes, Migration } from './index.ts';

// SQLite: documents are stored as SQLite's binary JSON (JSONB) from now on, as PostgreSQL stores
// them as jsonb. json_extract and `->` read a field of JSONB without parsing the whole document
// (a page of posts cut down to a few attributes: 3x faster; a field of every body: 3.5x), and
// json() turns it back into text no slower than the text was read. The column keeps its declared
// type: SQLite stores the BLOB as it is. Readers use json(), which also reads any row still
// holding text; revisions copied before this migration keep theirs.
const sql = (t: ColumnTypes) =>
  t.textToBinaryJson ? `UPDATE documents SET content = ${t.textToBinaryJson}(content) WHERE typeof(content) = 'text';` : '';

export const binaryDocuments: Migration = { version: 7, name: 'binary-documents', sql };
