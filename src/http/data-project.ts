import type { FastifyRequest } from 'fastify';
import type { ProjectRecord } from '../store/index.ts';
import type { Services } from '../services.ts';
import { PROJECT_HEADER, SANITY_PROJECT_HEADER, resolveDataProject } from '../projects/data-project-resolver.ts';
import { principalOf } from './request-context.ts';
import { scopedProject } from './api-dialect.ts';

/**
 * The project a request names: in its path (`/api/p/<project>/...`), else the header X-Project
 * (or X-Sanity-Project-ID), else the query parameter `project`.
 */
export function namedProject(request: FastifyRequest): string | undefined {
  const scoped = scopedProject(request);
  if (scoped !== undefined) return scoped;
  const header = request.headers[PROJECT_HEADER] ?? request.headers[SANITY_PROJECT_HEADER];
  if (typeof header === 'string' && header.length > 0) return header;
  const query = (request.query as Record<string, unknown> | undefined)?.project;
  return typeof query === 'string' && query.length > 0 ? query : undefined;
}

export function dataProject(services: Services, request: FastifyRequest, dataset: string): Promise<ProjectRecord> {
  return resolveDataProject(services.projects, principalOf(request), dataset, namedProject(request));
}
