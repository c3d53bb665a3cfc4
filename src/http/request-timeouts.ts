import type { IncomingMessage } from 'node:http';
import { constants, type Http2ServerRequest, type ServerHttp2Stream } from 'node:http2';
import type { FastifyInstance } from 'fastify';
import type { RequestTimeouts } from '../config.ts';

/**
 * REQUEST_IDLE_TIMEOUT_MS (Fastify's connectionTimeout, a socket's inactivity) is meant for a
 * client that stops sending its request. Once the request has arrived whole, the server may
 * work on it for longer without a byte either way (an import, a query up to its budget): from
 * then on the socket's timeout is off, until Node sets the keep-alive timeout after the response.
 * REQUEST_TIMEOUT_MS (the whole request) is Node's own timer on HTTP/1.1.
 */
export function registerRequestTimeouts(app: FastifyInstance, timeouts: RequestTimeouts): void {
  // Over HTTP/2 a connection carries many requests and its "socket" is the shared session, and
  // Node has no whole-request timer for streams: both timers are the stream's own, running while
  // the request arrives, as the socket's do on HTTP/1.1. Without the second, a client sending a
  // byte now and then would hold a stream, and the body it buffers, for as long as it liked.
  app.addHook('onRequest', async (request) => {
    const raw = request.raw;
    const stream = http2Stream(raw);
    if (!stream) return;
    const cancel = () => stream.close(constants.NGHTTP2_CANCEL);
    stream.setTimeout(timeouts.idleMs, cancel);
    if (timeouts.requestMs === 0 || arrivedWhole(raw, stream)) return;
    const deadline = setTimeout(() => {
      if (!arrivedWhole(raw, stream)) cancel();
    }, timeouts.requestMs);
    deadline.unref();
    const arrived = () => clearTimeout(deadline);
    raw.once('end', arrived);
    stream.once('close', arrived);
  });
  app.addHook('preHandler', async (request) => {
    const raw = request.raw;
    const stream = http2Stream(raw);
    const clear = () => (stream ? stream.setTimeout(0) : raw.socket?.setTimeout(0));
    // Bodies that routes read themselves (imports, uploads) are still arriving here.
    if (arrivedWhole(raw, stream)) clear();
    else raw.once('end', clear);
  });
}

/** The app is typed for HTTP/1; over HTTP/2 its raw requests are Node's compatibility requests. */
function http2Stream(raw: IncomingMessage): ServerHttp2Stream | undefined {
  return raw.httpVersionMajor === 2 ? (raw as unknown as Http2ServerRequest).stream : undefined;
}

/**
 * Whether the client has sent all of its request. An HTTP/2 request is `complete` only once its
 * body has been read, and a request without one (a GET) is never read: there the stream says
 * whether the client has finished sending.
 */
function arrivedWhole(raw: IncomingMessage, stream: ServerHttp2Stream | undefined): boolean {
  return raw.complete || stream?.endAfterHeaders === true || stream?.state.remoteClose === 1;
}
