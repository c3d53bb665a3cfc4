import { WebSocket } from 'ws';
import type { TestApp } from './test-app.ts';
import { Inbox } from './inbox.ts';

export type Message = { type: string; [key: string]: unknown };

export interface ListenSocket {
  socket: WebSocket;
  messages: Inbox<Message>;
  send(message: unknown): void;
  /** The next message of this type. */
  next(type: string, timeoutMs?: number): Promise<Message>;
  /** Subscribes and waits for the welcome. */
  subscribe(subscription: Record<string, unknown>): Promise<Message>;
  /** Resolves when the server closes the socket. */
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

export function listenUrl(app: TestApp, dataset = 'production', query = ''): string {
  return `${app.url.replace(/^http/, 'ws')}/api/v1/data/listen/${dataset}${query}`;
}

/** Opens a WebSocket to the listen route; rejects with the HTTP status and body if the upgrade is refused. */
export function openListenSocket(url: string, headers: Record<string, string> = {}): Promise<ListenSocket> {
  const socket = new WebSocket(url, { headers });
  const messages = new Inbox<Message>();
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  return new Promise((resolve, reject) => {
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => reject(new UpgradeRefused(response.statusCode ?? 0, body)));
    });
    socket.once('error', reject);
    socket.once('open', () => {
      const client: ListenSocket = {
        socket,
        messages,
        closed,
        send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
        next: (type, timeoutMs) => messages.take((message) => message.type === type, timeoutMs, `a "${type}" message`),
        async subscribe(subscription) {
          client.send({ type: 'subscribe', ...subscription });
          return client.next('welcome');
        },
        async close() {
          if (socket.readyState === WebSocket.CLOSED) return;
          socket.close();
          await closed;
        },
      };
      resolve(client);
    });
  });
}

export class UpgradeRefused extends Error {
  readonly status: number;
  readonly body: { statusCode: number; error: string; message: string };

  constructor(status: number, body: string) {
    super(`upgrade refused with ${status}: ${body}`);
    this.status = status;
    this.body = JSON.parse(body) as { statusCode: number; error: string; message: string };
  }
}

/** The refusal of an upgrade that should fail. */
export async function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<UpgradeRefused> {
  try {
    const socket = await openListenSocket(url, headers);
    await socket.close();
  } catch (error) {
    if (error instanceof UpgradeRefused) return error;
    throw error;
  }
  throw new Error('the upgrade was accepted');
}

export interface ServerSentEvent {
  event: string;
  id: string | undefined;
  data: string;
}

export interface EventStream {
  status: number;
  headers: Headers;
  events: Inbox<ServerSentEvent>;
  /** Comment lines (keep-alives) received so far. */
  comments(): number;
  next(event: string, timeoutMs?: number): Promise<ServerSentEvent & { json: Record<string, unknown> }>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a Server-Sent Events stream and parses it as EventSource does (events, ids, comments). */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events = new Inbox<ServerSentEvent>();
  let comments = 0;
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    let current: { event: string; id: string | undefined; data: string[] } = { event: 'message', id: undefined, data: [] };
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (current.data.length > 0) events.push({ event: current.event, id: current.id, data: current.data.join('\n') });
            current = { event: 'message', id: undefined, data: [] };
          } else if (line.startsWith(':')) {
            comments++;
          } else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') current.event = value;
            else if (field === 'id') current.id = value;
            else if (field === 'data') current.data.push(value);
          }
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments: () => comments,
    async next(event, timeoutMs) {
      const found = await events.take((item) => item.event === event, timeoutMs, `an "${event}" event`);
      return { ...found, json: JSON.parse(found.data) as Record<string, unknown> };
    },
    ended,
    close: () => abort.abort(),
  };
}
