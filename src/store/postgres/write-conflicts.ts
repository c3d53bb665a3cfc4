import pg from 'pg';
import { AppError } from '../../errors.ts';

/**
 * PostgreSQL's errors for a transaction that lost a race with another writer: a key another
 * transaction took first (unique_violation: the next revision number of a document), a
 * serialization failure, a deadlock. Imports write without locking the documents they touch (an
 * import may touch millions: a lock per document would not fit in the lock table), so an import
 * and a write to the same documents at the same time can meet these, on either side. The
 * transaction is rolled back whole; the request is answered 409, to be sent again.
 */
const CONFLICT_CODES = new Set(['23505', '40001', '40P01']);

export function asWriteConflict(error: unknown): unknown {
  if (!(error instanceof pg.DatabaseError) || !CONFLICT_CODES.has(error.code ?? '')) return error;
  return new AppError('CONFLICT', 'Another request wrote the same documents at the same time, so nothing was written: send the request again', {}, error);
}
