import type { Dialect } from '../sql.ts';
import type { ColumnTypes, Migration } from './index.ts';

// Each document, and each revision's copy of one, also holds what its content takes once parsed
// (`heap_bytes`: 64 bytes for each object or array, 8 for each value, a string's characters and 16
// more; json/json-weight.ts), written with the content. Pages and steps of documents that are
// parsed are cut by the larger of it and the text's length: 600 KB of `[{},{},…]` take 14 MB
// once parsed, and a page cut at 8 MB of text held hundreds of MB. Rows written before this
// migration have none (NULL), and count by their text.
// SQLite reaches a column after a large value through that value's overflow pages: appended
// after the content, reading heap_bytes beside a part of each document made a scan a quarter
// slower. Its documents table is written again with the column before the content (once, at
// this migration: a few seconds per GB). Revisions' copies are read by size only for the history,
// and keep it at the end.
const sql = (t: ColumnTypes, dialect: Dialect) =>
  dialect === 'postgres'
    ? `ALTER TABLE documents ADD COLUMN heap_bytes INTEGER;
ALTER TABLE revisions ADD COLUMN heap_bytes INTEGER;`
    : `CREATE TABLE documents_with_heap_bytes (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  id ${t.binaryText} NOT NULL,
  type TEXT NOT NULL,
  rev TEXT NOT NULL,
  created_at ${t.timestamp} NOT NULL,
  updated_at ${t.timestamp} NOT NULL,
  heap_bytes INTEGER,
  content ${t.json} NOT NULL,
  PRIMARY KEY (project_id, dataset, id)
);
INSERT INTO documents_with_heap_bytes (project_id, dataset, id, type, rev, created_at, updated_at, content)
  SELECT project_id, dataset, id, type, rev, created_at, updated_at, content FROM documents ORDER BY project_id, dataset, id;
DROP TABLE documents;
ALTER TABLE documents_with_heap_bytes RENAME TO documents;
CREATE INDEX documents_type_id ON documents(project_id, dataset, type, id);
ALTER TABLE revisions ADD COLUMN heap_bytes INTEGER;`;

export const heapBytes: Migration = { version: 17, name: 'heap-bytes', sql };
