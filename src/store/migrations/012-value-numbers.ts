import type { Dialect } from '../sql.ts';
import type { ColumnTypes, Migration } from './index.ts';

// PostgreSQL: each value row of a number also holds the number itself (`num`, NULL for strings and
// booleans), computed by the database from the encoded value, so that math::sum/avg/min/max of a
// path's values are one aggregate in SQL (IndexDialect.numberColumn) instead of every value row
// sent to the server and decoded there. No writer changes: the column is generated, so the value
// rows of imports (expanded in SQL) get it too. The encoding (document-index/values.ts): the rank
// '2', then the IEEE 754 bits made sortable as 16 hex digits (positives with the sign bit set,
// negatives inverted). Undone here: the bits' magnitude, then (2^52 + mantissa) * 2^(exponent -
// 1075), or mantissa * 2^-1074 for the subnormals; every step is exact in double precision.
// Adding the column rewrites the table once.
//
// SQLite runs on the server's one thread, where one statement over a path's every row would be a
// stall that grows with the dataset; it keeps summing the value rows a page at a time.
const bits = `('x' || substr(value, 2, 16))::bit(64)::bigint`;
const magnitude = `(CASE WHEN ${bits} < 0 THEN ${bits} & 9223372036854775807 ELSE 9223372036854775807 - ${bits} END)`;
const exponent = `(${magnitude} >> 52)`;
const mantissa = `(${magnitude} & 4503599627370495)`;

const sql = (_types: ColumnTypes, dialect: Dialect) =>
  dialect === 'postgres'
    ? `ALTER TABLE document_values ADD COLUMN num DOUBLE PRECISION GENERATED ALWAYS AS (
  CASE WHEN value >= '2' AND value < '3' THEN
    (CASE WHEN ${bits} < 0 THEN 1 ELSE -1 END) *
    (CASE WHEN ${exponent} = 0 THEN ${mantissa}::float8 * 2::float8 ^ -1074
      ELSE (${mantissa} | 4503599627370496)::float8 * 2::float8 ^ (${exponent} - 1075)::float8 END)
  END) STORED;`
    : '';

export const valueNumbers: Migration = { version: 12, name: 'value-numbers', sql };
