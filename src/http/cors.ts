import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CorsService } from '../projects/cors-service.ts';

/** What browsers may send and read across origins: what Sanity's clients and Studio use. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'X-Sanity-Project-ID', 'X-Project', 'x-sanity-app', 'If-None-Match', 'Last-Event-ID'];
const EXPOSED_HEADERS = ['ETag', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Sanity's clients probe CORS with /ping, which answers every origin (it reveals nothing). */
const OPEN_PATHS = /^\/api\/v1\/(ping|data\/ping\/[^/?]+)(\?|$)/;

/**
 * CORS for the origins a project allows (CorsService): their requests get their origin back, with
 * credentials where allowed; any other origin gets no CORS headers, so the browser keeps the
 * answer from the page, and a refused preflight is answered 403 (error-handler.ts).
 */
export async function registerCors(app: FastifyInstance, origins: CorsService): Promise<void> {
  await app.register(cors, {
    hook: 'onRequest',
    delegator: async (request: FastifyRequest) => {
      const origin = request.headers.origin;
      const base = { methods: METHODS, allowedHeaders: ALLOWED_HEADERS, exposedHeaders: EXPOSED_HEADERS, maxAge: 600, strictPreflight: false };
      if (origin === undefined) return { ...base, origin: false };
      if (OPEN_PATHS.test(request.url)) return { ...base, origin: true, credentials: false };
      const policy = await origins.policyFor(origin);
      return policy ? { ...base, origin: true, credentials: policy.credentials } : { ...base, origin: false };
    },
  });
}
