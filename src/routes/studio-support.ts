import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { bearerSecurity } from '../http/schemas.ts';
import { datasetParam } from './data/schemas.ts';

const publicRoute = { access: 'public' } as const;
const pong = { 200: { type: 'string', description: 'PONG' } } as const;

/**
 * What Sanity's clients and Studio call besides the content API, answered as a self-hosted
 * service should: the latency and CORS probes, features and telemetry (none: nothing is sent
 * anywhere), and Sanity's onboarding "journeys" (nothing to show).
 */
export const studioSupportRoutes: FastifyPluginAsync<{ services: Services }> = async (app) => {
  app.get('/ping', { config: publicRoute, schema: { tags: ['health'], summary: "Sanity's connectivity probe: PONG to anyone", response: pong } }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send('PONG'),
  );

  app.get<{ Params: { dataset: string } }>(
    '/data/ping/:dataset',
    {
      config: publicRoute,
      schema: {
        tags: ['health'],
        summary: "Sanity's latency probe for a dataset: PONG",
        params: { type: 'object', properties: { dataset: datasetParam }, required: ['dataset'] },
        response: pong,
      },
    },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send('PONG'),
  );

  app.get(
    '/features',
    { config: { access: 'optional' }, schema: { tags: ['health'], summary: 'Feature flags of the project (none)', response: { 200: { type: 'array', items: { type: 'string' } } } } },
    async () => [],
  );

  app.get(
    '/intake/telemetry-status',
    {
      config: { access: 'optional' },
      schema: {
        tags: ['health'],
        summary: "Studio's telemetry consent: always denied (nothing is collected)",
        response: { 200: { type: 'object', properties: { status: { type: 'string', const: 'denied' } }, required: ['status'] } },
      },
    },
    async () => ({ status: 'denied' as const }),
  );

  app.post(
    '/intake/batch',
    { config: publicRoute, bodyLimit: 64 * 1024, schema: { tags: ['health'], summary: 'Telemetry batches: accepted and dropped', response: { 204: { type: 'null' } } } },
    async (_request, reply) => reply.code(204).send(),
  );

  app.get(
    '/journey/*',
    {
      schema: {
        tags: ['health'],
        summary: "Sanity's onboarding messages and trials: none",
        security: bearerSecurity,
        response: { 200: { type: 'null' } },
      },
    },
    async () => null,
  );
};
