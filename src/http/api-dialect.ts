import type { FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { SANITY_PROJECT_HEADER } from '../projects/data-project-resolver.ts';

/**
 * Sanity's clients address dated API versions (`/api/v2025-02-19/...`, or `/api/vX/...`). Those
 * paths serve the same API as `/api/v1/` (the URL is rewritten before routing), answering in
 * Sanity's shapes where they differ from the service's own. A request from a Sanity client pointed at
 * `/api/v1/` is recognized by the X-Sanity-Project-ID header it always sends here, and gets the
 * same shapes; everything else on `/api/v1/` keeps the service's own shapes exactly.
 */
const VERSIONED = /^\/api\/(vX|v\d{4}-\d{2}-\d{2}|v1)(\/.*)?$/;
/** The version prefix each request came with (`vX`, `v2025-02-19`), when it was not v1. */
const sanityRequests = new WeakMap<IncomingMessage, string>();

/**
 * Asset URLs that Sanity's image-url builder makes from `apiHost` carry no version
 * (`/api/images/<project>/<dataset>/<file>`): they are the same as under /api/v1.
 */
const UNVERSIONED_ASSETS = /^\/api\/(images|files)\//;

/**
 * A project named in the path, as Sanity names it in the host (`<project>.api.sanity.io`):
 * `/api/p/<project>/v2025-02-19/...` is `/api/v2025-02-19/...` for that project. Sanity's clients
 * send X-Sanity-Project-ID on most requests but not on listeners and history (EventSource and
 * fetch): with `apiHost: <origin>/api/p/<project>` every request names its project.
 */
const PROJECT_SCOPED = /^\/api\/p\/([A-Za-z0-9_-]{1,64})(\/.*)$/;
const scopedProjects = new WeakMap<IncomingMessage, string>();

/** The project the request's path names (`/api/p/<project>/...`), if it does. */
export function scopedProject(request: FastifyRequest): string | undefined {
  return scopedProjects.get(request.raw);
}

/** Fastify's rewriteUrl hook: maps every accepted version prefix (and unversioned asset URLs) onto /api/v1. */
export function rewriteVersionedUrl(request: IncomingMessage): string {
  let url = request.url ?? '/';
  const scoped = PROJECT_SCOPED.exec(url);
  if (scoped) {
    scopedProjects.set(request, scoped[1]!);
    url = `/api${scoped[2]!}`;
  }
  if (UNVERSIONED_ASSETS.test(url)) return `/api/v1${url.slice('/api'.length)}`;
  const match = VERSIONED.exec(url.split('?')[0] ?? url);
  if (!match || match[1] === 'v1') return url;
  sanityRequests.set(request, match[1]!);
  return `/api/v1${url.slice(`/api/${match[1]}`.length)}`;
}

/**
 * Whether the request's API version is 2025-02-19 or later (or vX): from that version on, Sanity's
 * queries default to the published perspective instead of raw.
 */
export function isPublishedByDefault(request: FastifyRequest): boolean {
  const version = sanityRequests.get(request.raw);
  return version !== undefined && (version === 'vX' || version.slice(1) >= '2025-02-19');
}

/** Whether to answer in Sanity's shapes. */
export function isSanityDialect(request: FastifyRequest): boolean {
  return sanityRequests.has(request.raw) || request.headers[SANITY_PROJECT_HEADER] !== undefined;
}
