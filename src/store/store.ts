import { countingStatements, type Database, type Dialect, type SqlExecutor, type StatementCounter } from './sql.ts';
import { migrate, type MigrationResult } from './migrate.ts';
import { rebuildDocumentIndexIfStale } from './document-index/rebuild.ts';
import { PlannerStatistics } from './planner-statistics.ts';
import { sqlDialect } from './dialects/dialect.ts';
import { DocumentIndexReader } from './document-index/reader.ts';
import { UserRepository } from './repos/users.ts';
import { ProjectRepository } from './repos/projects.ts';
import { RefreshTokenRepository } from './repos/refresh-tokens.ts';
import { SessionRepository } from './repos/sessions.ts';
import { CorsOriginRepository } from './repos/cors-origins.ts';
import { UserSettingsRepository } from './repos/user-settings.ts';
import { ApiTokenRepository } from './repos/api-tokens.ts';
import { DocumentRepository } from './repos/documents.ts';
import { RevisionRepository } from './repos/revisions.ts';
import { OutboxRepository } from './repos/outbox.ts';
import { ScheduleRepository } from './repos/schedules.ts';
import { AssetRepository } from './repos/assets.ts';
import { WebhookRepository } from './repos/webhooks.ts';
import { DeliveryRepository } from './repos/webhook-deliveries.ts';
import { WorkerCursorRepository } from './repos/worker-cursors.ts';
import { DocumentChangeRepository } from './repos/document-changes.ts';
import { TransactionLogRepository } from './repos/transaction-log.ts';

/** The repositories, bound either to the database or to one open transaction. */
export interface Repositories {
  readonly users: UserRepository;
  readonly projects: ProjectRepository;
  readonly refreshTokens: RefreshTokenRepository;
  readonly sessions: SessionRepository;
  readonly corsOrigins: CorsOriginRepository;
  readonly userSettings: UserSettingsRepository;
  readonly apiTokens: ApiTokenRepository;
  readonly documents: DocumentRepository;
  /** The query planner's reads: documents through the document index (src/store/document-index). */
  readonly documentIndex: DocumentIndexReader;
  readonly revisions: RevisionRepository;
  readonly outbox: OutboxRepository;
  readonly schedules: ScheduleRepository;
  readonly assets: AssetRepository;
  readonly webhooks: WebhookRepository;
  readonly deliveries: DeliveryRepository;
  readonly cursors: WorkerCursorRepository;
  /** Every document change in commit order, for real-time listeners. */
  readonly changes: DocumentChangeRepository;
  /** The same log read as history: a document's transactions, a transaction's documents (Sanity's History API). */
  readonly transactionLog: TransactionLogRepository;
}

/** What the query planner reads: documents by id, and the document index. */
export type PlannerReads = Pick<Repositories, 'documents' | 'documentIndex'>;

/**
 * The async, dialect-neutral storage interface the services depend on. SQL lives below it only.
 */
export interface Store extends Repositories {
  readonly dialect: Dialect;
  /** The planner's reads, counting in `counter` the statements they send (EXPLAIN output). */
  countedReads(counter: StatementCounter): PlannerReads;
  /** Runs `fn` with repositories bound to one transaction; nothing is written if it throws. */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  migrate(): Promise<MigrationResult>;
  /** Resolves when the database answers; used by health checks. */
  ping(): Promise<void>;
  /** The engine's settings that decide whether an answered write survives a power loss, by name, as the writer has them. */
  durability(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * `documentsWritten` is told how many documents each write wrote. A transaction's index reader
 * shares the store's (its counts): a new one would also allocate a cache per transaction.
 */
function repositories(db: SqlExecutor, documentsWritten?: (documents: number) => void, documentIndex = new DocumentIndexReader(db), inTransaction = false): Repositories {
  return {
    users: new UserRepository(db),
    projects: new ProjectRepository(db),
    refreshTokens: new RefreshTokenRepository(db),
    sessions: new SessionRepository(db),
    corsOrigins: new CorsOriginRepository(db),
    userSettings: new UserSettingsRepository(db),
    apiTokens: new ApiTokenRepository(db),
    documents: new DocumentRepository(db, documentsWritten, { inTransaction }),
    documentIndex,
    revisions: new RevisionRepository(db),
    outbox: new OutboxRepository(db),
    schedules: new ScheduleRepository(db),
    assets: new AssetRepository(db),
    webhooks: new WebhookRepository(db),
    deliveries: new DeliveryRepository(db),
    cursors: new WorkerCursorRepository(db),
    changes: new DocumentChangeRepository(db),
    transactionLog: new TransactionLogRepository(db),
  };
}

export function createStoreOn(db: Database): Store {
  const statistics = db.plannerStatistics && new PlannerStatistics(db.plannerStatistics);
  // Outside a transaction every statement commits on its own.
  const bound = repositories(db, (documents) => statistics?.written(documents));
  return {
    ...bound,
    dialect: db.dialect,
    countedReads: (counter) => {
      const counting = countingStatements(db, counter);
      return { documents: new DocumentRepository(counting), documentIndex: bound.documentIndex.on(counting) };
    },
    transaction: async (fn) => {
      let written = 0;
      const result = await db.transaction(async (tx) => {
        // From zero: a transaction may run again (SQLite's group commit, when the shared one failed).
        written = 0;
        const repos = repositories(tx, (documents) => (written += documents), bound.documentIndex.on(tx), true);
        const value = await fn(repos);
        // Index rows an import deferred, written before the commit.
        await repos.documents.completeIndex();
        return value;
      });
      // Counted once committed: statistics are never refreshed inside the writing transaction.
      statistics?.written(written);
      return result;
    },
    migrate: async () => {
      const result = await migrate(db);
      // Documents written before the document index existed (or under another version of it).
      await rebuildDocumentIndexIfStale(db);
      // Statistics missing (a restore, a first start after a bulk load) or made stale by the rebuild.
      await statistics?.refreshNow();
      return result;
    },
    ping: async () => void (await db.get('SELECT 1 AS ok')),
    durability: async () => {
      // In a transaction: on SQLite, the writer's settings (reads go through another connection).
      const rows = await db.transaction((tx) => tx.all<{ name: string; setting: string }>(sqlDialect(db.dialect).durabilitySettings));
      return Object.fromEntries(rows.map((row) => [row.name, String(row.setting)]));
    },
    close: async () => {
      await statistics?.close();
      await db.close();
    },
  };
}
