import type { Config } from './config.ts';
import type { Logger } from './logging.ts';
import type { Store } from './store/index.ts';
import type { AuthService } from './identity/auth-service.ts';
import type { UserService } from './identity/user-service.ts';
import type { ApiTokenService } from './identity/api-token-service.ts';
import type { ProjectService } from './projects/project-service.ts';
import type { CorsService } from './projects/cors-service.ts';
import type { UserSettingsService } from './identity/user-settings-service.ts';
import type { RateLimiter } from './http/rate-limit/rate-limiter.ts';
import type { MutationService } from './content/mutations/mutation-service.ts';
import type { PublishingService } from './content/publishing-service.ts';
import type { ActionService } from './content/actions/action-service.ts';
import type { HistoryService } from './content/history-service.ts';
import type { DocumentReader } from './content/document-reader.ts';
import type { QueryService } from './content/query/query-service.ts';
import type { Scheduler } from './content/scheduler.ts';
import type { AssetService } from './assets/asset-service.ts';
import type { BlobStore } from './assets/blob-store.ts';
import type { SanityAssetService } from './assets/sanity-asset-service.ts';
import type { WebhookService } from './webhooks/webhook-service.ts';
import type { WebhookWorker } from './webhooks/webhook-worker.ts';
import type { RealtimeService } from './realtime/realtime-service.ts';
import type { PresenceService } from './realtime/presence/presence-service.ts';
import type { ImportService } from './import-export/import-service.ts';
import type { ExportService } from './import-export/export-service.ts';
import type { SchemaType } from './schema/load-schema.ts';
import type { Readiness } from './lifecycle/readiness.ts';

/** Everything the HTTP layer, the workers and the CLI call into, built once by the composition root. */
export interface Services {
  readonly config: Config;
  readonly log: Logger;
  readonly store: Store;
  readonly auth: AuthService;
  readonly users: UserService;
  readonly projects: ProjectService;
  /** The origins browsers may call the API from (per project, and CORS_ORIGINS). */
  readonly cors: CorsService;
  /** Each user's UI settings (Studio's key-value store). */
  readonly userSettings: UserSettingsService;
  readonly apiTokens: ApiTokenService;
  readonly rateLimiter: RateLimiter;
  readonly mutations: MutationService;
  readonly publishing: PublishingService;
  /** Sanity's Actions API (POST /data/actions). */
  readonly actions: ActionService;
  readonly history: HistoryService;
  readonly documents: DocumentReader;
  readonly queries: QueryService;
  readonly assets: AssetService;
  readonly blobs: BlobStore;
  readonly sanityAssets: SanityAssetService;
  readonly webhooks: WebhookService;
  readonly importer: ImportService;
  readonly exporter: ExportService;
  /** The schema types of SCHEMA_PATH, when configured. */
  readonly schema: SchemaType[] | undefined;
  /** Background work; started by the server (and by tests that need it), not by buildApp. */
  readonly scheduler: Scheduler;
  readonly webhookWorker: WebhookWorker;
  /** Real-time listeners (GET /data/listen): started by the server or by the first subscription. */
  readonly realtime: RealtimeService;
  /** Presence for Sanity Studio (GET /socket/:dataset): who else has a document open. */
  readonly presence: PresenceService;
  /** GET /ready: the database answers and the instance is not shutting down. */
  readonly readiness: Readiness;
}
