import pg from 'pg';
import type { InstanceBroadcast, InstanceBroadcastOptions } from '../instance-broadcast.ts';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;
/** One channel per schema, as the change log's: instances of different schemas never mix. */
const BROADCAST_CHANNEL_SQL = `'cms_broadcast_' || substr(md5(current_schema()), 1, 16)`;

/**
 * NOTIFY and LISTEN on one connection of its own (a pooled one cannot keep a LISTEN). A payload is
 * at most 8000 bytes. Messages are sent outside any transaction, so they leave at once; while the
 * connection is down (it is reopened with backoff) they are dropped, as are those sent to it
 * meanwhile by other instances.
 */
export class PostgresBroadcast implements InstanceBroadcast {
  readonly maxMessageBytes = 7_900;
  private readonly url: string;
  private readonly options: InstanceBroadcastOptions;
  private readonly receivers = new Set<(message: string) => void>();
  private client: pg.Client | undefined;
  private channel: string | undefined;
  private starting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;
  private closed = false;

  constructor(url: string, options: InstanceBroadcastOptions) {
    this.url = url;
    this.options = options;
  }

  publish(message: string): void {
    const { client, channel } = this;
    if (!client || channel === undefined) return;
    client.query('SELECT pg_notify($1, $2)', [channel, message]).catch(() => undefined); // the error event reports it
  }

  subscribe(receive: (message: string) => void): () => void {
    this.receivers.add(receive);
    return () => this.receivers.delete(receive);
  }

  start(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.channel = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const schema = this.options.schema;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 10_000,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    client.on('notification', (notification) => {
      if (notification.channel !== this.channel || notification.payload === undefined) return;
      for (const receive of this.receivers) receive(notification.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      const channel = (await client.query<{ channel: string }>(`SELECT ${BROADCAST_CHANNEL_SQL} AS channel`)).rows[0]?.channel ?? '';
      await client.query(`LISTEN "${channel}"`);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.channel = channel;
      this.retryMs = RETRY_MIN_MS;
    } catch (error) {
      client.end().catch(() => undefined);
      this.retry(error);
      throw error;
    }
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.channel = undefined;
    client.end().catch(() => undefined);
    this.retry(error);
  }

  private retry(error: unknown): void {
    if (this.closed) return;
    this.options.onError?.(error);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.start().catch(() => undefined); // a failed start schedules the next attempt
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}
