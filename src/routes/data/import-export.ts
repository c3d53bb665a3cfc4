import type { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import { AppError } from '../../errors.ts';
import { principalOf } from '../../http/request-context.ts';
import { dataProject } from '../../http/data-project.ts';
import { bearerSecurity, errorResponses } from '../../http/schemas.ts';
import { importSpoolDirectory, spoolImportBody, type ImportBodyFormat } from '../../import-export/import-spool.ts';
import { datasetParams, projectQuery } from './schemas.ts';
import { textStream } from '../../http/text-stream.ts';

/**
 * A document line may be this long: the largest body a mutation may send (16 MiB), so every
 * document that one request could create imports, and one line in memory stays far below the
 * server's budget.
 */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

interface ImportBody {
  format: ImportBodyFormat;
  stream: Readable;
}

export const importExportRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  // Import bodies reach the route as streams, never parsed whole: application/json holds a JSON
  // array or NDJSON, told apart by its first byte (this plugin's routes only).
  app.removeContentTypeParser('application/json');
  const formats: [string, ImportBodyFormat][] = [['application/x-ndjson', 'ndjson'], ['application/ndjson', 'ndjson'], ['application/json', 'json']];
  for (const [type, format] of formats) {
    app.addContentTypeParser(type, (_request, stream, done) => done(null, { format, stream } satisfies ImportBody));
  }

  app.get<{ Params: { dataset: string }; Querystring: { types?: string; drafts?: boolean } }>(
    '/data/export/:dataset',
    {
      schema: {
        tags: ['data migration'],
        summary: 'Export a dataset as NDJSON, one document per line (drafts included unless drafts=false)',
        security: bearerSecurity,
        params: datasetParams,
        querystring: {
          type: 'object',
          properties: {
            types: { type: 'string', description: 'Comma-separated document types to export' },
            drafts: { type: 'boolean', default: true, description: 'false leaves drafts out' },
            ...projectQuery,
          },
        },
        response: { 200: { type: 'string', description: 'NDJSON' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { dataset } = request.params;
      const project = await dataProject(services, request, dataset);
      const types = (request.query.types ?? '')
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type.length > 0);
      const lines = services.exporter.open(principalOf(request), project, dataset, { types, drafts: request.query.drafts });
      reply.header('Content-Type', 'application/x-ndjson');
      reply.header('Content-Disposition', `attachment; filename=${dataset}-export.ndjson`);
      return reply.send(textStream(lines));
    },
  );

  app.post<{ Params: { dataset: string }; Querystring: { replace?: boolean }; Body: ImportBody | undefined }>(
    '/data/import/:dataset',
    {
      bodyLimit: services.config.importBodyLimitBytes,
      schema: {
        tags: ['data migration'],
        summary: 'Import NDJSON (or a JSON array) of documents in one transaction (project admin session)',
        description:
          'Ids starting with system. or _. are skipped; existing documents are skipped unless replace=true; ' +
          '_createdAt is kept. Lines that are not valid JSON documents are reported in errors with their ' +
          'numbers; the valid ones commit together. Compatible with `sanity dataset export` NDJSON.',
        security: bearerSecurity,
        consumes: ['application/x-ndjson', 'application/json'],
        params: datasetParams,
        querystring: { type: 'object', properties: { replace: { type: 'boolean', default: false }, ...projectQuery } },
        response: {
          200: {
            type: 'object',
            properties: {
              total: { type: 'integer' },
              created: { type: 'integer' },
              replaced: { type: 'integer' },
              skipped: { type: 'integer' },
              errors: {
                type: 'array',
                items: { type: 'object', properties: { line: { type: 'integer' }, error: { type: 'string' } }, required: ['line', 'error'] },
              },
            },
            required: ['total', 'created', 'replaced', 'skipped', 'errors'],
          },
          ...errorResponses(400, 401, 403, 404, 413, 415),
        },
      },
    },
    async (request) => {
      const { dataset } = request.params;
      const project = await dataProject(services, request, dataset);
      const body = request.body;
      const actor = principalOf(request);
      if (body === undefined) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send NDJSON (application/x-ndjson) or a JSON array of documents (application/json)');
      // Refused before a byte of the body is stored.
      services.importer.authorize(actor, project, dataset);
      const spooled = await spoolImportBody(body.stream, {
        directory: importSpoolDirectory(services.config.dataDir),
        format: body.format,
        maxBytes: services.config.importBodyLimitBytes,
        maxLineBytes: MAX_LINE_BYTES,
      });
      try {
        return await services.importer.import(actor, project, dataset, spooled.lines(), request.query.replace === true);
      } finally {
        await spooled.remove();
      }
    },
  );
};
