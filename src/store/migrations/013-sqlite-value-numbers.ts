import type { Dialect } from '../sql.ts';
import type { ColumnTypes, Migration } from './index.ts';

// SQLite: each value row of a number also holds the number itself (`num`, NULL for strings and
// booleans), as PostgreSQL's have since migration 012, so that math::sum/avg/min/max of a path's
// values are aggregates in SQL there too: each value row sent to the server's thread and decoded
// there cost more than reading the index. SQLite cannot add a stored generated column to a table,
// so the writers write it (IndexDialect.numbers) and the rows already stored get it here, decoded
// by the connection's groq_number() (sqlite/sql-functions.ts). Numbers rank '2' in the encoding.
const sql = (_types: ColumnTypes, dialect: Dialect) =>
  dialect === 'sqlite'
    ? `ALTER TABLE document_values ADD COLUMN num REAL;
UPDATE document_values SET num = groq_number(value) WHERE value >= '2' AND value < '3';`
    : '';

export const sqliteValueNumbers: Migration = { version: 13, name: 'sqlite-value-numbers', sql };
