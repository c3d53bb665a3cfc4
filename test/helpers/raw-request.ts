import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  socket: net.Socket;
  /** Sends more of the body; resolves once it was handed to the operating system. */
  write(data: string | Buffer): Promise<void>;
  /** The server's answer: it may come before the body is complete, or never if the server waits. */
  response: Promise<RawResponse>;
  /** Whether the answer has arrived (a request that is still open answers false). */
  answered(): boolean;
}

/**
 * An HTTP/1.1 request written on a plain socket, so a test controls exactly when (and whether)
 * each part of the body is sent, what Content-Length announces, and when the connection drops.
 */
export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>): RawRequest {
  const url = new URL(baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  const head = [`${method} ${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
  socket.write(head);
  let received = Buffer.alloc(0);
  let answered = false;
  const response = new Promise<RawResponse>((resolve, reject) => {
    const settle = () => {
      const parsed = parseResponse(received);
      if (!parsed) return false;
      answered = true;
      resolve(parsed);
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      settle();
    });
    socket.on('close', () => {
      if (!answered && !settle()) reject(new Error(`the connection closed without an answer (${received.length} bytes received)`));
    });
  });
  response.catch(() => undefined);
  return {
    socket,
    write: (data) => new Promise<void>((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve()))),
    response,
    answered: () => answered,
  };
}

/** A complete response with a Content-Length body, or undefined while it is still arriving. */
function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length < end + 4 + length) return undefined;
  return { status: Number(statusLine!.split(' ')[1]), headers, body: bytes.subarray(end + 4, end + 4 + length).toString('utf8') };
}
