// Functions the store's SQL calls on SQLite, registered on every connection. PostgreSQL computes
// the same in its schema (a generated column, migration 012), where SQL that decodes the index's
// encoding costs little; in SQLite's SQL it took four times as long as this call.
import type BetterSqlite3 from 'better-sqlite3';
import { encodedNumber } from '../document-index/values.ts';

export function registerSqlFunctions(connection: BetterSqlite3.Database): void {
  // The number an index value stands for (NULL for other values): the value rows' `num`.
  connection.function('groq_number', { deterministic: true }, (encoded: unknown) => (typeof encoded === 'string' ? encodedNumber(encoded) : null));
}
