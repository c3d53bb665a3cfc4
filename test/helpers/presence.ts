import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import type { TestApp } from './test-app.ts';
import { Inbox } from './inbox.ts';

export interface RpcFrame {
  jsonrpc: string;
  id?: string | number | null;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: { subscription: string; result: PresenceResult };
}

export type PresenceResult =
  | { type: 'state'; i: string; m: { sessionId: string; locations: unknown[] } }
  | { type: 'rollCall'; i: string; session: string }
  | { type: 'disconnect'; i: string; m: { session: string } };

/** Studio's socket URL for a project named in the path (apiHost `<origin>/api/p/<project>`). */
export function presenceUrl(app: TestApp, project: string, dataset = 'production'): string {
  return `${app.url.replace(/^http/, 'ws')}/api/p/${project}/v2022-06-30/socket/${dataset}?tag=sanity.studio`;
}

/**
 * A presence client that sends what @sanity/bifur-client 0.4.1 sends: JSON-RPC 2.0 requests with
 * `apiVersion: 'v1'` added to the params and 20-character ids, `authorization` first.
 */
export class PresenceClient {
  readonly socket: WebSocket;
  private readonly inbox = new Inbox<RpcFrame>();
  heartbeats = 0;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      const text = String(data);
      if (text === '♥') this.heartbeats++;
      else this.inbox.push(JSON.parse(text) as RpcFrame);
    });
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    void this.closed.then(() => this.inbox.end('closed'));
  }

  static open(url: string): Promise<PresenceClient> {
    const socket = new WebSocket(url);
    const client = new PresenceClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }

  /** Opens, authorizes with the token and subscribes; resolves once the subscription's id came. */
  static async connect(url: string, token: string): Promise<PresenceClient & { subscription: string }> {
    const client = await PresenceClient.open(url);
    const authorized = await client.call('authorization', { authorization: `Bearer ${token}` });
    if (authorized.result !== true) throw new Error(`authorization refused: ${JSON.stringify(authorized)}`);
    const subscription = (await client.call('presence_subscribe')).result;
    if (typeof subscription !== 'string') throw new Error(`no subscription id: ${JSON.stringify(subscription)}`);
    return Object.assign(client, { subscription });
  }

  send(text: string): void {
    this.socket.send(text);
  }

  request(method: string, params: Record<string, unknown> = {}): string {
    const id = randomBytes(15).toString('base64url');
    this.send(JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, apiVersion: 'v1' }, id }));
    return id;
  }

  /** Sends a request and waits for the reply with its id. */
  async call(method: string, params: Record<string, unknown> = {}): Promise<RpcFrame> {
    const id = this.request(method, params);
    return this.take((frame) => frame.id === id, `the reply to ${method}`);
  }

  /** The next presence event (of a type, and not of `exceptUser` when given). */
  async event<T extends PresenceResult['type']>(type: T, match: (result: Extract<PresenceResult, { type: T }>) => boolean = () => true): Promise<Extract<PresenceResult, { type: T }>> {
    const frame = await this.take(
      (candidate) => candidate.method === 'presence_subscription' && candidate.params?.result.type === type && match(candidate.params.result as Extract<PresenceResult, { type: T }>),
      `a "${type}" event`,
    );
    return frame.params!.result as Extract<PresenceResult, { type: T }>;
  }

  /** Presence events received and not taken yet. */
  events(): PresenceResult[] {
    return this.inbox.all.filter((frame) => frame.method === 'presence_subscription').map((frame) => frame.params!.result);
  }

  /** Frames received and not taken yet. */
  get frames(): readonly RpcFrame[] {
    return this.inbox.all;
  }

  /** Removes and returns the first frame `match` accepts, waiting up to `timeoutMs`. */
  take(match: (frame: RpcFrame) => boolean, what: string, timeoutMs = 10_000): Promise<RpcFrame> {
    return this.inbox.take(match, timeoutMs, what);
  }

  async close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.close(1000, 'WebSockets connection closed by client');
    await this.closed;
  }
}

/** Studio's location of an editor in a document's field. */
export function location(documentId: string, path: unknown[] = ['title']): Record<string, unknown> {
  return { type: 'document', documentId, path, lastActiveAt: new Date().toISOString() };
}
