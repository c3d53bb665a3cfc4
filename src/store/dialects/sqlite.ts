import { raw, sql } from '../sql-fragment.ts';
import type { SqlDialect } from './dialect.ts';

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  placeholder: () => '?',
  readsOffThread: false,
  // SQLite's JSONB, which json_extract and `->` read without parsing text; json() reads it back,
  // and rows that still hold text too.
  binaryJsonParam: 'jsonb(?)',
  binaryJsonColumn: (column) => `json(${column})`,
  binaryJsonText: (column) => `json(${column})`,
  // SQLite reads a blob's length from its record's header, not its pages.
  documentTextBytes: 'length(content)',
  documentParsedBytes: 'max(length(content), coalesce(heap_bytes, 0))',
  // Older revisions hold text, whose length() counts characters by reading it; octet_length does
  // not. The scalar max() is NULL where the content is.
  revisionParsedBytes: 'max(octet_length(content), coalesce(heap_bytes, 0))',
  copyCurrentContent: (currentDocument) => `(content, heap_bytes) = (SELECT d.content, d.heap_bytes ${currentDocument})`,
  // One writer commits at a time: `seq` alone is commit order.
  logAfter: (table, columns, position, limit) =>
    sql`SELECT seq, CAST(commit_order AS TEXT) AS commit_order, ${raw(columns)} FROM ${raw(table)} WHERE seq > ${position.seq} ORDER BY seq LIMIT ${limit}`,
  logHeldBack: () => null,
  logAtOrBefore: (position) => sql`seq <= ${position.seq}`,
  commitHorizon: (table) => `SELECT CAST(COALESCE(MAX(seq), 0) AS TEXT) AS horizon FROM ${table}`,
  logOrder: 'seq',
  durabilitySettings: `SELECT 'synchronous' AS name, CASE synchronous WHEN 0 THEN 'off' WHEN 1 THEN 'normal' WHEN 2 THEN 'full' ELSE 'extra' END AS setting FROM pragma_synchronous()`,
};
