import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { ConfigError } from '../config.ts';

/** Paths the studio never answers: the API, and the service's own pages. */
const SERVICE_PATHS = ['/api', '/login'];
/** Vite names built chunks `<name>-<hash>.js`: their content never changes under that name. */
const HASHED_FILE = /-[\w-]{8,}\.(?:js|mjs|css)$/;

function isServicePath(path: string): boolean {
  return SERVICE_PATHS.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** STUDIO_DIR must hold a build: without index.html every page would be a 404. */
export function assertStudioBuild(root: string): void {
  if (!existsSync(join(root, 'index.html'))) {
    throw new ConfigError(`STUDIO_DIR (${root}) has no index.html: build the studio first (npm run studio, or npm run build in studio/)`);
  }
}

/**
 * What the studio's page may load and connect to: this origin only (plus its own inline scripts,
 * by hash, and the styles styled-components writes at run time). Studio's bundle would also poll
 * Sanity's CDN for newer versions (every 15 minutes, not configurable): the browser refuses it.
 */
export function studioContentSecurityPolicy(html: string): string {
  const inlineScripts = [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)];
  const hashes = inlineScripts.map((match) => `'sha256-${createHash('sha256').update(match[1] ?? '').digest('base64')}'`);
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-ancestors 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * A built Sanity Studio (STUDIO_DIR, the output of `sanity build`) on the service's own origin:
 * its files as they are, and index.html for every other GET outside the API, because Studio
 * routes in the browser (/structure/post;abc reloads as index.html). The build is read at start:
 * restart the service after building again.
 */
export const studioRoutes: FastifyPluginAsync<{ root: string }> = async (app, { root }) => {
  assertStudioBuild(root);
  const index = readFileSync(join(root, 'index.html'), 'utf8');
  const pageHeaders = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'content-security-policy': studioContentSecurityPolicy(index),
    'x-content-type-options': 'nosniff',
  };
  // The studio's files are public (its sign-in happens in the browser); @fastify/static takes no
  // route config, so every route of this plugin is marked here.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: 'public', rateLimitGroup: 'static' };
  });
  await app.register(fastifyStatic, {
    root,
    // One route per built file, found at start; everything else reaches the fallback below.
    wildcard: false,
    index: false,
    // The page itself is answered below, with its security policy.
    globIgnore: ['index.html'],
    // Hashed chunks are cached for good; the rest is revalidated, so a new build shows at once.
    cacheControl: false,
    setHeaders: (response, path) => {
      response.setHeader('cache-control', HASHED_FILE.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    if (isServicePath(path)) return reply.callNotFound();
    return reply.headers(pageHeaders).send(index);
  });
};
