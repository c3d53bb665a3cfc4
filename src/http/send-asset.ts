import { createReadStream } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AssetContent } from '../assets/asset-service.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** True when an If-None-Match header names this ETag (weak or strong, or `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '');
    return candidate === '*' || candidate === etag;
  });
}

/** Sends an asset's bytes with its caching and safety headers, or 304 when the client has them. */
export function sendAssetContent(request: FastifyRequest, reply: FastifyReply, content: AssetContent) {
  reply.header('ETag', content.etag);
  reply.header('Cache-Control', IMMUTABLE);
  // Asset bytes are never run as a page of our origin (uploaded SVG or HTML cannot script the API).
  reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
  reply.header('X-Content-Type-Options', 'nosniff');
  if (matches(request.headers['if-none-match'], content.etag)) return reply.code(304).send();
  if (content.download !== undefined) {
    reply.header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(content.download)}`);
  }
  reply.header('Content-Length', content.size);
  return reply.type(content.mimeType).send(createReadStream(content.path));
}
