import type { FastifyRequest } from 'fastify';
import type { ProjectRecord } from '../store/index.ts';
import type { Services } from '../services.ts';
import { PROJECT_HEADER, SANITY_PROJECT_HEADER, resolveDataProject } from '../projects/data-project-resolver.ts';
import { principalOf } from './request-context.ts';

/** The project of a /data or /assets request: the header X-Project (or X-Sanity-Project-ID), else query `project`. */
export function namedProject(request: FastifyRequest): string | undefined {
  const header = request.headers[PROJECT_HEADER] ?? request.headers[SANITY_PROJECT_HEADER];
  if (typeof header === 'string' && header.length > 0) return header;
  const query = (request.query as Record<string, unknown> | undefined)?.project;
  return typeof query === 'string' && query.length > 0 ? query : undefined;
}

export function dataProject(services: Services, request: FastifyRequest, dataset: string): Promise<ProjectRecord> {
  return resolveDataProject(services.projects, principalOf(request), dataset, namedProject(request));
}
