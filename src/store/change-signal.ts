import { onSqliteCommit } from './sqlite/commit-signal.ts';
import { PostgresChangeSignal } from './postgres/postgres-change-signal.ts';

/**
 * Wakes readers of the change log (repos/document-changes.ts) when changes may have committed, on
 * this instance or another. Only a hint: readers also poll, so a lost signal delays a change and
 * never loses it.
 */
export interface ChangeSignal {
  /** Calls `wake` on every signal until the returned function is called. */
  subscribe(wake: () => void): () => void;
  /** Resolves once signals flow (PostgreSQL: the LISTEN is in place). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ChangeSignalOptions {
  /** PostgreSQL only: the schema the store works in (the channel is per schema). */
  schema?: string;
  /** Told when the signal's connection fails; it reconnects by itself. */
  onError?: (error: unknown) => void;
}

/** SQLite: commits in this process. */
class SqliteChangeSignal implements ChangeSignal {
  private readonly file: string;
  private readonly unsubscribers = new Set<() => void>();

  constructor(file: string) {
    this.file = file;
  }

  subscribe(wake: () => void): () => void {
    const unsubscribe = onSqliteCommit(this.file, wake);
    this.unsubscribers.add(unsubscribe);
    return () => {
      unsubscribe();
      this.unsubscribers.delete(unsubscribe);
    };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers.clear();
  }
}

/** The signal for the database DATABASE_URL names: in-process commits (SQLite) or LISTEN/NOTIFY (PostgreSQL). */
export function openChangeSignal(databaseUrl: string, options: ChangeSignalOptions = {}): ChangeSignal {
  if (databaseUrl.startsWith('sqlite:')) return new SqliteChangeSignal(databaseUrl.slice('sqlite:'.length));
  return new PostgresChangeSignal(databaseUrl, options);
}
