import type { ColumnTypes, Migration } from './index.ts';

// The indexes the GROQ planner answers queries from (src/store/document-index/README.md):
// - document_values: one row per indexed scalar leaf of a document; its key serves equality,
//   ranges and ORDER BY on any path;
// - document_entries: one row per document holding its indexed values (path -> encoded value),
//   its shape's hash and the ids it references: a document's value at a path without a second
//   index over document_values, and the rows a rewrite must remove, so that a write touches only
//   the rows that change;
// - document_shapes: the indexed paths (with their kinds) of each distinct shape, for defined()
//   and for documents that lack a path;
// - document_references: the ids each document references, for references() and reverse lookups;
// - documents_type_id: documents of given types in id order (GROQ's dataset order), covering ids.
// The rows are written by DocumentRepository with the documents; document_index_state records
// which version of that encoding the rows follow, and Store.migrate() rebuilds them from the
// documents when it is not the current one (here: for documents written before this migration).
const sql = (t: ColumnTypes) => `
CREATE TABLE document_values (
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  path TEXT NOT NULL,
  value ${t.binaryText} NOT NULL,
  id ${t.binaryText} NOT NULL,
  PRIMARY KEY (project_id, dataset, path, value, id)
)${t.keyedTable};
CREATE TABLE document_entries (
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  id ${t.binaryText} NOT NULL,
  shape TEXT NOT NULL,
  vals ${t.binaryJson} NOT NULL,
  refs ${t.json} NOT NULL,
  PRIMARY KEY (project_id, dataset, id)
)${t.keyedTable};
CREATE TABLE document_shapes (
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  shape TEXT NOT NULL,
  type TEXT NOT NULL,
  paths ${t.json} NOT NULL,
  PRIMARY KEY (project_id, dataset, shape)
);
CREATE TABLE document_references (
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  target_id ${t.binaryText} NOT NULL,
  id ${t.binaryText} NOT NULL,
  PRIMARY KEY (project_id, dataset, target_id, id)
)${t.keyedTable};
CREATE INDEX documents_type_id ON documents(project_id, dataset, type, id);
DROP INDEX documents_type;
CREATE TABLE document_index_state (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO document_index_state (name, value) VALUES ('version', '0');
`;

export const documentIndex: Migration = { version: 6, name: 'document-index', sql };
