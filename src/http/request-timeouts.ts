import type { IncomingMessage } from 'node:http';
import { constants, type Http2ServerRequest, type ServerHttp2Stream } from 'node:http2';
import type { FastifyInstance } from 'fastify';

/**
 * REQUEST_IDLE_TIMEOUT_MS (Fastify's connectionTimeout, a socket's inactivity) is meant for a
 * client that stops sending its request. Once the request has arrived whole, the server may
 * work on it for longer without a byte either way (an import, a query up to its budget): from
 * then on the socket's timeout is off, until Node sets the keep-alive timeout after the response.
 */
export function registerRequestTimeouts(app: FastifyInstance, idleMs: number): void {
  // Over HTTP/2 a connection carries many requests and its "socket" is the shared session, so the
  // timer is the stream's own: it runs while the request arrives, as the socket's does on HTTP/1.
  app.addHook('onRequest', async (request) => {
    const stream = http2Stream(request.raw);
    stream?.setTimeout(idleMs, () => stream.close(constants.NGHTTP2_CANCEL));
  });
  app.addHook('preHandler', async (request) => {
    const raw = request.raw;
    const stream = http2Stream(raw);
    const clear = () => (stream ? stream.setTimeout(0) : raw.socket?.setTimeout(0));
    // Bodies that routes read themselves (imports, uploads) are still arriving here.
    if (raw.complete) clear();
    else raw.once('end', clear);
  });
}

/** The app is typed for HTTP/1; over HTTP/2 its raw requests are Node's compatibility requests. */
function http2Stream(raw: IncomingMessage): ServerHttp2Stream | undefined {
  return raw.httpVersionMajor === 2 ? (raw as unknown as Http2ServerRequest).stream : undefined;
}
