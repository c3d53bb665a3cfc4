import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Services } from '../services.ts';
import { registerErrorHandling } from './error-handler.ts';
import { registerValidation } from './validation.ts';
import { registerOpenApi, API_PREFIX } from './openapi.ts';
import { requestContextPlugin } from './request-context.ts';
import { healthRoutes } from '../routes/health.ts';
import { authRoutes } from '../routes/auth.ts';
import { userRoutes } from '../routes/users.ts';
import { projectRoutes } from '../routes/projects.ts';
import { tokenRoutes } from '../routes/tokens.ts';
import { loggerOptions } from './logging.ts';

export interface AppOptions {
  /** Pino logging; off in tests. */
  logger?: boolean;
  version?: string;
}

/** Builds the HTTP app on the given services. It never listens: the server entry point does. */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const serverOptions: FastifyServerOptions = {
    logger: options.logger ? loggerOptions(services.config.logLevel) : false,
    // Bodies are limited per route where larger uploads are allowed; 1 MiB elsewhere.
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  };
  const app = Fastify(serverOptions);
  registerValidation(app);
  registerErrorHandling(app);
  await registerOpenApi(app, options.version ?? '0.0.0');
  await app.register(requestContextPlugin, {
    auth: services.auth,
    rateLimiter: services.rateLimiter,
    limitPerMinute: services.config.rateLimitPerMinute,
    authLimitPerMinute: services.config.rateLimitAuthPerMinute,
  });
  for (const routes of [healthRoutes, authRoutes, userRoutes, projectRoutes, tokenRoutes]) {
    await app.register(routes, { prefix: API_PREFIX, services });
  }
  return app;
}
