import type { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { AppError, badRequest } from '../errors.ts';
import type { AssetType } from '../store/index.ts';
import { principalOf } from '../http/request-context.ts';
import { dataProject } from '../http/data-project.ts';
import { bearerSecurity, deletedSchema, errorResponses, paginationQuery } from '../http/schemas.ts';
import { ASSET_LIST_DEFAULT_LIMIT, ASSET_LIST_MAX_LIMIT } from '../assets/asset-service.ts';
import { FITS, MAX_DIMENSION, OUTPUT_FORMATS, type TransformQuery } from '../assets/transform.ts';
import { datasetParam, projectQuery } from './data/schemas.ts';
import { sendAssetContent } from '../http/send-asset.ts';

export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const assetId = { type: 'string', format: 'uuid' } as const;
// RFC 2046: 1 to 70 characters. busboy would split a body on an empty boundary.
const MULTIPART_BOUNDARY = /;\s*boundary=(?:"[^"]{1,70}"|[^\s;"]{1,70})\s*(?:;|$)/i;

/** busboy reports a malformed or cut-off body with a plain Error: the client's, so a 400. */
function multipartError(error: unknown): Error {
  if (error instanceof AppError || (error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number')) return error;
  return badRequest(`The multipart body is malformed: ${error instanceof Error ? error.message : 'unreadable'}`);
}

/** The one file part of a multipart upload; a body busboy cannot parse is a 400. */
async function uploadedFile(request: FastifyRequest): Promise<{ filename: string; stream: Readable }> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data in the field "file"');
  if (!MULTIPART_BOUNDARY.test(request.headers['content-type'] ?? '')) throw badRequest('The multipart Content-Type needs a boundary of 1 to 70 characters');
  const file = await request.file({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }).catch((error: unknown) => {
    throw multipartError(error);
  });
  if (!file) throw badRequest('No file: send it as multipart/form-data in the field "file"');
  if (file.fieldname !== 'file') {
    file.file.resume();
    throw badRequest(`The file must be in the form field "file", not "${file.fieldname}"`);
  }
  // The limit is enforced while streaming: the upload fails (and is cleaned up) the moment it is hit.
  file.file.once('limit', () => file.file.destroy(new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`)));
  return { filename: file.filename, stream: file.file };
}

/** Runs the upload; the error the parser left on the file stream (a cut-off part) is a 400. */
async function readingUpload<T>(stream: Readable, upload: () => Promise<T>): Promise<T> {
  try {
    return await upload();
  } catch (error) {
    throw error !== null && error === stream.errored ? multipartError(error) : error;
  }
}

const uploadSchema = {
  type: 'object',
  properties: {
    _id: { type: 'string' },
    assetId: { type: 'string' },
    _type: { type: 'string', enum: ['image', 'file'] },
    path: { type: 'string' },
    url: { type: 'string' },
    metadata: {
      type: 'object',
      properties: {
        width: { type: 'integer' },
        height: { type: 'integer' },
        format: { type: 'string' },
        hasAlpha: { type: 'boolean' },
        palette: { type: 'object', properties: { dominant: { type: 'string' }, vibrant: { type: 'string' } } },
      },
    },
  },
  required: ['_id', 'assetId', '_type', 'path', 'url'],
} as const;

export const assetRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post<{ Params: { dataset: string } }>(
    '/assets/:dataset',
    {
      schema: {
        tags: ['assets'],
        summary: 'Upload a file (multipart/form-data, field "file", at most 50 MB)',
        description: 'The type is decided from the bytes: images get width, height, format, hasAlpha and palette metadata.',
        security: bearerSecurity,
        consumes: ['multipart/form-data'],
        params: { type: 'object', properties: { dataset: datasetParam }, required: ['dataset'] },
        querystring: { type: 'object', properties: projectQuery },
        response: { 201: uploadSchema, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request, reply) => {
      const { dataset } = request.params;
      const project = await dataProject(services, request, dataset);
      const file = await uploadedFile(request);
      const uploaded = await readingUpload(file.stream, () => services.assets.upload(principalOf(request), project, dataset, file));
      return reply.code(201).send(uploaded);
    },
  );

  app.get<{ Params: { id: string }; Querystring: TransformQuery }>(
    '/assets/:id',
    {
      // Links and <img> send no Authorization header: the login page's session cookie is accepted here.
      config: { cookieAuth: true },
      schema: {
        tags: ['assets'],
        summary: 'The asset, or for images a transformed variant (cached)',
        description:
          `w and h are 1 to ${MAX_DIMENSION} pixels (after dpr, sides are capped at ${MAX_DIMENSION}); images are never enlarged, except by fit=fill. ` +
          'A variant over the configured pixel limits is a 400 (one asking for no size is scaled down to fit); 429 with Retry-After when too many renders wait. ' +
          'Responses carry ETag and immutable Cache-Control; a matching If-None-Match answers 304.',
        security: bearerSecurity,
        params: { type: 'object', properties: { id: assetId }, required: ['id'] },
        querystring: {
          type: 'object',
          properties: {
            w: { type: 'integer', minimum: 1, maximum: MAX_DIMENSION },
            h: { type: 'integer', minimum: 1, maximum: MAX_DIMENSION },
            fit: { type: 'string', enum: [...FITS] },
            format: { type: 'string', enum: [...OUTPUT_FORMATS] },
            q: { type: 'integer', minimum: 1, maximum: 100 },
            blur: { type: 'number', minimum: 0.3, maximum: 100 },
            dpr: { type: 'number', minimum: 1, maximum: 3 },
          },
        },
        response: { 200: { type: 'string', format: 'binary' }, 304: { type: 'null' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => sendAssetContent(request, reply, await services.assets.content(principalOf(request), request.params.id, request.query)),
  );

  app.get<{ Params: { dataset: string }; Querystring: { type?: AssetType; limit: number; offset: number } }>(
    '/assets/:dataset/list',
    {
      schema: {
        tags: ['assets'],
        summary: 'Assets of a dataset, newest first; total counts every asset matching type',
        security: bearerSecurity,
        params: { type: 'object', properties: { dataset: datasetParam }, required: ['dataset'] },
        querystring: {
          type: 'object',
          properties: {
            type: { type: 'string', enum: ['image', 'file'] },
            ...paginationQuery(ASSET_LIST_DEFAULT_LIMIT, ASSET_LIST_MAX_LIMIT),
            ...projectQuery,
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              items: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    type: { type: 'string' },
                    filename: { type: 'string', nullable: true },
                    mime_type: { type: 'string' },
                    size: { type: 'integer' },
                    url: { type: 'string' },
                    metadata: { type: 'object', additionalProperties: true },
                    created_at: { type: 'string' },
                  },
                },
              },
              total: { type: 'integer' },
            },
            required: ['items', 'total'],
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { dataset } = request.params;
      const project = await dataProject(services, request, dataset);
      const { type, limit, offset } = request.query;
      return services.assets.list(principalOf(request), project, dataset, type, limit, offset);
    },
  );

  app.delete<{ Params: { dataset: string; id: string } }>(
    '/assets/:dataset/:id',
    {
      schema: {
        tags: ['assets'],
        summary: 'Delete an asset, its file and its cached variants',
        security: bearerSecurity,
        params: { type: 'object', properties: { dataset: datasetParam, id: assetId }, required: ['dataset', 'id'] },
        querystring: { type: 'object', properties: projectQuery },
        response: { 200: deletedSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { dataset, id } = request.params;
      const project = await dataProject(services, request, dataset);
      return services.assets.delete(principalOf(request), project, dataset, id);
    },
  );
};
