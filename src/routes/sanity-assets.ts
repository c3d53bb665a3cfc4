import { Transform, type Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { AppError } from '../errors.ts';
import { principalOf } from '../http/request-context.ts';
import { dataProject } from '../http/data-project.ts';
import { sendAssetContent } from '../http/send-asset.ts';
import { bearerSecurity, errorResponses } from '../http/schemas.ts';
import type { SanityAssetKind } from '../assets/sanity-asset-service.ts';
import { MAX_UPLOAD_BYTES } from './assets.ts';
import { datasetParam, documentSchema, projectQuery } from './data/schemas.ts';

/** Passes the bytes through and fails the stream (413) the moment they exceed `limit`. */
function limited(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) done(new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${limit / 1024 / 1024} MB`, { Connection: 'close' }));
      else done(null, chunk);
    },
  });
}

const kinds = ['images', 'files'] as const;

/**
 * Sanity's asset API, as @sanity/client and @sanity/image-url use it: raw uploads to
 * /assets/images/:dataset and /assets/files/:dataset answered with the asset document, and
 * /images/... and /files/... URLs served from the asset store.
 */
export const sanityAssetRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  // Uploads here are the raw file, whatever its type: every body is handed over as a stream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  for (const kind of kinds) {
    app.post<{ Params: { dataset: string }; Querystring: { filename?: string }; Body: Readable | undefined }>(
      `/assets/${kind}/:dataset`,
      {
        schema: {
          tags: ['assets'],
          summary: `Upload ${kind === 'images' ? 'an image' : 'a file'} as Sanity's clients do: the raw bytes as the body (at most 50 MB)`,
          description: `Answers {document} with the sanity.${kind === 'images' ? 'imageAsset' : 'fileAsset'} document; the same bytes uploaded again give the same document.`,
          security: bearerSecurity,
          params: { type: 'object', properties: { dataset: datasetParam }, required: ['dataset'] },
          querystring: {
            type: 'object',
            properties: {
              filename: { type: 'string', maxLength: 255 },
              meta: { type: 'string' },
              label: { type: 'string' },
              title: { type: 'string' },
              description: { type: 'string' },
              source: { type: 'string' },
              sourceId: { type: 'string' },
              sourceUrl: { type: 'string' },
              tag: { type: 'string' },
              ...projectQuery,
            },
          },
          response: {
            200: { type: 'object', properties: { document: documentSchema }, required: ['document'] },
            ...errorResponses(400, 401, 403, 404, 413),
          },
        },
      },
      async (request) => {
        const { dataset } = request.params;
        const project = await dataProject(services, request, dataset);
        const body = request.body;
        if (!body || typeof body.pipe !== 'function') throw new AppError('BAD_REQUEST', 'Send the file as the request body');
        return services.sanityAssets.upload(principalOf(request), project, dataset, kind as SanityAssetKind, body.pipe(limited(MAX_UPLOAD_BYTES)), request.query.filename);
      },
    );

    app.get<{ Params: { project: string; dataset: string; file: string }; Querystring: Record<string, unknown> }>(
      `/${kind}/:project/:dataset/:file`,
      {
        // <img> sends no Authorization header: the login page's session cookie is accepted here.
        config: { cookieAuth: true },
        schema: {
          tags: ['assets'],
          summary:
            kind === 'images'
              ? 'An image by Sanity URL (<sha1>-<w>x<h>.<ext>), with @sanity/image-url parameters: w, h, rect, fit, crop, fm, auto=format, q, dpr, blur, bg, flip, or'
              : 'A file by Sanity URL (<sha1>.<ext>)',
          security: bearerSecurity,
          params: {
            type: 'object',
            properties: { project: { type: 'string', minLength: 1 }, dataset: datasetParam, file: { type: 'string', minLength: 1, maxLength: 100 } },
            required: ['project', 'dataset', 'file'],
          },
          response: { 200: { type: 'string', format: 'binary' }, 304: { type: 'null' }, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { project, dataset, file } = request.params;
        const content = await services.sanityAssets.content(principalOf(request), kind, project, dataset, file, request.query);
        return sendAssetContent(request, reply, content);
      },
    );
  }
};
