import type { Config } from './config.ts';
import type { Services } from './services.ts';
import { createLogger, type Logger } from './logging.ts';
import { openStore, type StoreOptions, type UserRecord } from './store/index.ts';
import { RecentReads } from './access/recent-reads.ts';
import { AccessTokens } from './identity/access-tokens.ts';
import { signingSecretIn } from './identity/signing-secret.ts';
import { PasswordHasher } from './identity/passwords.ts';
import { AuthService } from './identity/auth-service.ts';
import { UserService } from './identity/user-service.ts';
import { ApiTokenService } from './identity/api-token-service.ts';
import { ProjectService } from './projects/project-service.ts';
import { CorsService } from './projects/cors-service.ts';
import { UserSettingsService } from './identity/user-settings-service.ts';
import { RateLimiter } from './http/rate-limit/rate-limiter.ts';
import { MemoryCounterStore } from './http/rate-limit/counter-store.ts';
import { FallbackCounterStore } from './http/rate-limit/fallback-counter-store.ts';
import { MutationService } from './content/mutations/mutation-service.ts';
import { PublishingService } from './content/publishing-service.ts';
import { ActionService } from './content/actions/action-service.ts';
import { HistoryService } from './content/history-service.ts';
import { DocumentReader } from './content/document-reader.ts';
import { QueryService } from './content/query/query-service.ts';
import { QueryWorkers } from './content/query/query-workers.ts';
import { largestQueryText } from './content/query/query-budget.ts';
import { Scheduler } from './content/scheduler.ts';
import { AssetService } from './assets/asset-service.ts';
import { openBlobStore } from './assets/open-blob-store.ts';
import { ImageTransformer } from './assets/image-transformer.ts';
import { SanityAssetService } from './assets/sanity-asset-service.ts';
import { join } from 'node:path';
import { WebhookService } from './webhooks/webhook-service.ts';
import { WebhookWorker } from './webhooks/webhook-worker.ts';
import { RealtimeService } from './realtime/realtime-service.ts';
import { openChangeSignal } from './store/change-signal.ts';
import { PresenceService } from './realtime/presence/presence-service.ts';
import { openInstanceBroadcast } from './store/instance-broadcast.ts';
import { ImportService } from './import-export/import-service.ts';
import { ExportService } from './import-export/export-service.ts';
import { loadSchema } from './schema/load-schema.ts';
import { Readiness } from './lifecycle/readiness.ts';

export interface ServiceOptions extends StoreOptions {
  log?: Logger;
}

/** The composition root: builds the store and every service from the configuration. */
export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  const log = options.log ?? createLogger(config.logLevel);
  // A schema file that cannot be used stops the start before anything else is opened.
  const schema = config.schemaPath === undefined ? undefined : loadSchema(config.schemaPath);
  const store = openStore(config.databaseUrl, options);
  await store.migrate();
  log.info({ durability: await store.durability() }, 'store opened (durability: the settings that decide whether an answered write survives a power loss)');
  const passwords = new PasswordHasher(config.bcryptRounds);
  const projects = new ProjectService(store);
  const blobs = await openBlobStore(config).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const assets = new AssetService(store, blobs, new ImageTransformer(join(config.dataDir, 'cache'), config.images));
  // The Redis client is loaded only when REDIS_URL is set (it takes tens of MB of memory).
  const counters = config.redisUrl
    ? new FallbackCounterStore(new (await import('./http/rate-limit/redis-counter-store.ts')).RedisCounterStore(config.redisUrl, `${config.redisKeyPrefix}rl:`), (error) =>
        log.warn({ err: error }, 'Redis rate-limit counters failed; counting per instance until Redis answers'),
      )
    : new MemoryCounterStore();
  // The signed-in users read for requests: kept a second at most, forgotten when one changes here.
  const recentUsers = new RecentReads<UserRecord>();
  const auth = new AuthService({
    store,
    passwords,
    recentUsers,
    accessTokens: new AccessTokens(config.jwtSecret ?? generatedSigningSecret(config.dataDir, log), config.jwtAccessExpiresInSeconds),
    refreshLifetimeSeconds: config.jwtRefreshExpiresInSeconds,
    sessionLifetimeSeconds: config.sessionExpiresInSeconds,
  });
  return {
    config,
    log,
    store,
    projects,
    auth,
    users: new UserService({ store, passwords, recentUsers }),
    cors: new CorsService(store, projects, config.corsOrigins),
    userSettings: new UserSettingsService(store),
    apiTokens: new ApiTokenService(store, projects),
    rateLimiter: new RateLimiter(counters),
    mutations: new MutationService(store),
    publishing: new PublishingService(store),
    actions: new ActionService(store),
    history: new HistoryService(store),
    documents: new DocumentReader(store),
    queries: new QueryService(
      store,
      config.queries,
      new QueryWorkers({
        databaseUrl: config.databaseUrl,
        storeOptions: options.schema === undefined ? {} : { schema: options.schema },
        size: config.queries.workers,
        memoryLimitMb: config.queries.memoryLimitMb,
      }),
    ),
    assets,
    blobs,
    sanityAssets: new SanityAssetService(store, assets, projects, config.publicUrl),
    importer: new ImportService(store),
    exporter: new ExportService(store),
    schema,
    webhooks: new WebhookService(store, projects, { allowPrivateUrls: config.webhookAllowPrivateUrls }),
    scheduler: new Scheduler(store, config.schedulerIntervalMs, log.child({ worker: 'scheduler' })),
    webhookWorker: new WebhookWorker(store, log.child({ worker: 'webhooks' }), { allowPrivateUrls: config.webhookAllowPrivateUrls }),
    realtime: new RealtimeService(
      store,
      openChangeSignal(config.databaseUrl, { schema: options.schema, onError: (error) => log.warn({ err: error }, 'change signal connection lost; reconnecting') }),
      log.child({ worker: 'realtime' }),
      { listenersPerCaller: config.listenersPerCaller, filterLimits: { sliceMs: config.queries.sliceMs, maxTextChars: largestQueryText(config.queries.memoryLimitMb) } },
    ),
    presence: new PresenceService({
      auth,
      projects,
      broadcast: openInstanceBroadcast(config.databaseUrl, { schema: options.schema, onError: (error) => log.warn({ err: error }, 'presence broadcast connection lost; reconnecting') }),
      log: log.child({ worker: 'presence' }),
    }),
    readiness: new Readiness({ database: () => store.ping() }),
  };
}

function generatedSigningSecret(dataDir: string, log: Logger): string {
  const { secret, file, created } = signingSecretIn(dataDir);
  if (created) log.info({ file }, 'JWT_SECRET is not set: generated a random signing secret (set JWT_SECRET to share one between instances)');
  return secret;
}

/** Starts the background workers: scheduled publishing, webhook delivery, the real-time change feed. */
export function startWorkers(services: Services): void {
  services.scheduler.start();
  services.webhookWorker.start();
  // If it cannot start now, the first subscription tries again.
  services.realtime.start().catch((error: unknown) => services.log.error({ err: error }, 'the real-time change feed did not start'));
}

export async function closeServices(services: Services): Promise<void> {
  await services.scheduler.stop();
  await services.webhookWorker.stop();
  await services.presence.stop();
  await services.realtime.stop();
  await services.queries.close();
  await services.rateLimiter.close();
  await services.blobs.close?.();
  await services.store.close();
}
