import type { Http2SecureServer } from 'node:http2';
import Fastify, { type FastifyHttp2SecureOptions, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Services } from '../services.ts';
import { frameworkErrors, registerErrorHandling } from './error-handler.ts';
import { registerValidation } from './validation.ts';
import { registerOpenApi, API_PREFIX } from './openapi.ts';
import { requestContextPlugin } from './request-context.ts';
import { healthRoutes } from '../routes/health.ts';
import { readyRoutes } from '../routes/ready.ts';
import { authRoutes } from '../routes/auth.ts';
import { userRoutes } from '../routes/users.ts';
import { projectRoutes } from '../routes/projects.ts';
import { tokenRoutes } from '../routes/tokens.ts';
import { documentRoutes } from '../routes/data/documents.ts';
import { mutateRoutes } from '../routes/data/mutate.ts';
import { publishingRoutes } from '../routes/data/publishing.ts';
import { actionRoutes } from '../routes/data/actions.ts';
import { historyRoutes } from '../routes/data/history.ts';
import { registerJsonParser } from './json-parser.ts';
import { BodyMemory } from './body-memory.ts';
import { registerRequestTimeouts } from './request-timeouts.ts';
import { RequestLog } from './request-log.ts';
import { rewriteVersionedUrl } from './api-dialect.ts';
import { assetRoutes, MAX_UPLOAD_BYTES } from '../routes/assets.ts';
import multipart from '@fastify/multipart';
import { webhookRoutes } from '../routes/webhooks.ts';
import { importExportRoutes } from '../routes/data/import-export.ts';
import { schemaRoutes } from '../routes/schema.ts';
import { queryRoutes } from '../routes/data/query.ts';
import { sanityAssetRoutes } from '../routes/sanity-assets.ts';
import websocket from '@fastify/websocket';
import { listenRoutes } from '../routes/data/listen.ts';
import { presenceSocketRoutes } from '../routes/presence-socket.ts';
import cookie from '@fastify/cookie';
import { registerCors } from './cors.ts';
import { userSettingsRoutes } from '../routes/user-settings.ts';
import { corsOriginRoutes } from '../routes/cors-origins.ts';
import { sanityProjectRoutes } from '../routes/sanity-projects.ts';
import { studioSupportRoutes } from '../routes/studio-support.ts';
import { referenceRoutes } from '../routes/data/references.ts';
import { loginPageRoutes } from '../routes/login-page.ts';
import { studioRoutes } from '../routes/studio.ts';
import { closeIdleSessionsGracefully, secureServerOptions, type TlsCredentials } from './tls.ts';

export interface AppOptions {
  version?: string;
  /** Serve HTTPS with HTTP/2 (and HTTP/1.1 through ALPN) instead of plain HTTP. */
  tls?: TlsCredentials;
}

/**
 * Over HTTP/2 Fastify hands routes Node's compatibility request and response, which offer what
 * our routes use of the HTTP/1 ones (test/integration/http2.test.ts): the app keeps one type.
 */
function secureFastify(serverOptions: FastifyServerOptions, tls: TlsCredentials, idleMs: number): FastifyInstance {
  const app = Fastify({ ...serverOptions, ...secureServerOptions(tls, idleMs) } as FastifyHttp2SecureOptions<Http2SecureServer>);
  closeIdleSessionsGracefully(app.server);
  return app as unknown as FastifyInstance;
}

/** Fastify's trustProxy from TRUST_PROXY: a hop count trusts that many proxies nearest the server. */
function trustedProxies(setting: string | number | false): FastifyServerOptions['trustProxy'] {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

/** Builds the HTTP app on the given services. It never listens: the server entry point does. */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const serverOptions: FastifyServerOptions = {
    loggerInstance: services.log,
    logController: new RequestLog(),
    // Bodies are limited per route where larger uploads are allowed; 1 MiB elsewhere.
    bodyLimit: 1024 * 1024,
    // Ids are up to 128 characters, and Sanity's clients ask for many documents in one parameter
    // (`/data/doc/:dataset/id1,id2,...`); the whole request head stays within Node's 16 KiB.
    routerOptions: { maxParamLength: 8 * 1024 },
    frameworkErrors,
    // A client that stalls while sending its request holds a socket, never more: idle connections
    // are closed and a request must arrive whole in time (REQUEST_IDLE_TIMEOUT_MS,
    // REQUEST_TIMEOUT_MS). Listeners are never idle: they get a keep-alive every 25 s.
    connectionTimeout: services.config.requestTimeouts.idleMs,
    requestTimeout: services.config.requestTimeouts.requestMs,
    return503OnClosing: true,
    rewriteUrl: rewriteVersionedUrl,
    // Behind a load balancer, the client address (rate-limit key) comes from X-Forwarded-For, but
    // only as written by the proxies TRUST_PROXY names: anyone else could forge it.
    trustProxy: trustedProxies(services.config.trustProxy),
  };
  const app = options.tls ? secureFastify(serverOptions, options.tls, services.config.requestTimeouts.idleMs) : Fastify(serverOptions);
  registerValidation(app);
  registerJsonParser(app, new BodyMemory());
  registerRequestTimeouts(app, services.config.requestTimeouts);
  // Once the instance is shutting down, every response closes its connection: clients reconnect
  // (through the load balancer, elsewhere), and a request finishing during close leaves no idle
  // keep-alive connection behind for the server to wait on.
  // HTTP/2 has no Connection header (Node drops it with a warning): a closing server sends its
  // connections GOAWAY instead, and a refused body ends its stream, not the connection.
  app.addHook('onSend', async (request, reply) => {
    if (request.raw.httpVersionMajor === 2) reply.removeHeader('connection');
    else if (services.readiness.draining) reply.header('Connection', 'close');
  });
  registerErrorHandling(app);
  await registerOpenApi(app, options.version ?? '0.0.0');
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 20 } });
  await app.register(websocket, {
    // Listener messages are small JSON (a query of at most 256 KiB): refuse frames far beyond that.
    options: { maxPayload: 1024 * 1024 },
    // Before the server waits for connections to end, listeners (WebSocket and SSE, the only
    // long-lived connections) are told to reconnect, so they move to another instance.
    preClose: async () => services.realtime.shutdown(),
  });
  // Cookies are read before the caller is identified (image routes accept the session cookie);
  // CORS answers preflights before any credential is asked for.
  await app.register(cookie);
  await registerCors(app, services.cors);
  await app.register(requestContextPlugin, {
    auth: services.auth,
    rateLimiter: services.rateLimiter,
    limitPerMinute: services.config.rateLimitPerMinute,
    authLimitPerMinute: services.config.rateLimitAuthPerMinute,
    sessionLimitPerMinute: services.config.rateLimitSessionPerMinute,
  });
  const routeGroups = [
    healthRoutes,
    readyRoutes,
    authRoutes,
    userRoutes,
    projectRoutes,
    tokenRoutes,
    documentRoutes,
    queryRoutes,
    mutateRoutes,
    publishingRoutes,
    actionRoutes,
    historyRoutes,
    assetRoutes,
    sanityAssetRoutes,
    webhookRoutes,
    importExportRoutes,
    listenRoutes,
    presenceSocketRoutes,
    referenceRoutes,
    userSettingsRoutes,
    corsOriginRoutes,
    sanityProjectRoutes,
    studioSupportRoutes,
  ];
  for (const routes of routeGroups) {
    await app.register(routes, { prefix: API_PREFIX, services });
  }
  if (services.schema) await app.register(schemaRoutes, { prefix: API_PREFIX, services, schema: services.schema });
  // The sign-in page lives beside the API, at /login, where Studio's auth provider points.
  await app.register(loginPageRoutes, { services });
  // Its fallback (GET /*) answers only the GETs no other route matches.
  if (services.config.studioDir) await app.register(studioRoutes, { root: services.config.studioDir });
  return app;
}
