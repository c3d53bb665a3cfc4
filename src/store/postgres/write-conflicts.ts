import pg from 'pg';
import { AppError } from '../../errors.ts';

/**
 * PostgreSQL's errors for a transaction that lost a race with another: a key another transaction
 * took first (unique_violation), a serialization failure, a deadlock. Writers of documents lock
 * them and imports hold their dataset (repos/documents.ts), so these are left to what the locks
 * do not cover: two transactions that each lock twice in opposite orders, rows other than
 * documents created at the same time. The transaction is rolled back whole; the request is
 * answered 409, to be sent again.
 */
const CONFLICT_CODES = new Set(['23505', '40001', '40P01']);

export function asWriteConflict(error: unknown): unknown {
  if (!(error instanceof pg.DatabaseError) || !CONFLICT_CODES.has(error.code ?? '')) return error;
  return new AppError('CONFLICT', 'Another request wrote the same data at the same time, so nothing was written: send the request again', {}, error);
}
