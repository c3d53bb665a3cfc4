import { connect as http2Connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { RequestOptions } from './test-app.ts';

export interface Http2Response<T = unknown> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
}

/** One HTTP/2 connection to a TLS server that trusts exactly `ca` (a test's own certificate). */
export interface Http2Client {
  session: ClientHttp2Session;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<Http2Response<T>>;
  /** Opens a stream and hands it over as it is: for bodies sent piecemeal and streamed answers. */
  open(method: string, path: string, headers?: Record<string, string>): ClientHttp2Stream;
  close(): Promise<void>;
}

export async function connectHttp2(baseUrl: string, ca: Buffer): Promise<Http2Client> {
  const connect = async () => {
    const session = http2Connect(baseUrl, { ca, servername: 'localhost' });
    session.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      session.once('connect', () => resolve());
      session.once('error', reject);
    });
    return session;
  };
  let session = await connect();
  // A server closes a connection that stays idle (REQUEST_IDLE_TIMEOUT_MS); browsers then open a
  // new one, and so does this client.
  const current = async () => (session.closed || session.destroyed ? (session = await connect()) : session);
  const open = (method: string, path: string, headers: Record<string, string> = {}) => session.request({ ':method': method, ':path': path, ...headers });

  return {
    get session() {
      return session;
    },
    open,
    async request<T>(method: string, path: string, options: RequestOptions = {}) {
      await current();
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const stream = open(method, path, headers);
      stream.end(body);
      const [responseHeaders, text] = await Promise.all([
        new Promise<IncomingHttpHeaders>((resolve, reject) => {
          stream.once('response', resolve);
          stream.once('error', reject);
        }),
        readAll(stream),
      ]);
      const parsed = String(responseHeaders['content-type'] ?? '').includes('json') && text.length > 0 ? JSON.parse(text) : text;
      return { status: Number(responseHeaders[':status']), headers: responseHeaders, body: parsed as T };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (session.destroyed) return resolve();
        session.once('close', () => resolve());
        session.close();
      }),
  };
}

function readAll(stream: ClientHttp2Stream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.once('end', () => resolve(text));
    stream.once('error', reject);
  });
}
