import { EventEmitter } from 'node:events';

// Commits of this process's SQLite write transactions, by database file. Every store opened on
// one file in this process shares its write queue (sqlite-database.ts), so a commit made through
// any of them reaches the readers of all of them. Other processes on the same file are not
// signalled: their readers find the changes at their next poll.
const commits = new EventEmitter();
commits.setMaxListeners(0);

/** Called right after COMMIT; listeners run later, so none can make a committed transaction look failed. */
export function announceSqliteCommit(file: string): void {
  if (commits.listenerCount(file) > 0) queueMicrotask(() => commits.emit(file));
}

/** Calls `listener` after every write transaction committed on `file`; returns the unsubscribe. */
export function onSqliteCommit(file: string, listener: () => void): () => void {
  commits.on(file, listener);
  return () => commits.off(file, listener);
}
