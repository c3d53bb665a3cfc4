import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  at: number;
}

/** How to answer the n-th request (0-based): a status, or a function that writes the response. */
export type Responder = (index: number, request: ReceivedRequest, response: ServerResponse) => number | 'hold' | void;

/** A real local HTTP server that records what webhooks deliver to it. */
export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  respond: Responder;
  /** Resolves when at least `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => 200, port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const held: ServerResponse[] = [];
  const receiver = { requests, respond } as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry: ReceivedRequest = { method: req.method ?? '', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const index = requests.length;
      requests.push(entry);
      const answer = receiver.respond(index, entry, res);
      if (answer === 'hold') {
        held.push(res);
        return;
      }
      if (typeof answer === 'number') res.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.waitFor = async (count, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (requests.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} of ${count} requests`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return requests;
  };
  receiver.close = async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
