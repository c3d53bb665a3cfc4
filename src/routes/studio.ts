import { existsSync } from 'node:fs';
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
 * A built Sanity Studio (STUDIO_DIR, the output of `sanity build`) on the service's own origin:
 * its files as they are, and index.html for every other GET outside the API, because Studio
 * routes in the browser (/structure/post;abc reloads as index.html).
 */
export const studioRoutes: FastifyPluginAsync<{ root: string }> = async (app, { root }) => {
  assertStudioBuild(root);
  // The studio's files are public (its sign-in happens in the browser); @fastify/static takes no
  // route config, so every route of this plugin is marked here.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: 'public' };
  });
  await app.register(fastifyStatic, {
    root,
    // One route per built file, found at start; everything else reaches the fallback below.
    wildcard: false,
    index: false,
    // Hashed chunks are cached for good; the rest is revalidated, so a new build shows at once.
    cacheControl: false,
    setHeaders: (response, path) => {
      response.setHeader('cache-control', HASHED_FILE.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    if (isServicePath(path)) return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
};
