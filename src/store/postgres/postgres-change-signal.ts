import pg from 'pg';
import { CHANGE_CHANNEL_SQL } from '../repos/document-changes.ts';
import type { ChangeSignal, ChangeSignalOptions } from '../change-signal.ts';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

/**
 * LISTEN on the change channel over a connection of its own (a pooled one cannot keep a LISTEN).
 * Writers NOTIFY in their transaction, so a notification arrives on every instance once the change
 * has committed. A lost connection is reopened with backoff, and readers are woken once it is
 * back, since notifications sent meanwhile are gone.
 */
export class PostgresChangeSignal implements ChangeSignal {
  private readonly url: string;
  private readonly options: ChangeSignalOptions;
  private readonly wakers = new Set<() => void>();
  private client: pg.Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;
  private closed = false;

  constructor(url: string, options: ChangeSignalOptions) {
    this.url = url;
    this.options = options;
  }

  subscribe(wake: () => void): () => void {
    this.wakers.add(wake);
    return () => this.wakers.delete(wake);
  }

  async start(): Promise<void> {
    if (this.client || this.closed) return;
    const schema = this.options.schema;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 10_000,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    this.client = client;
    client.on('notification', () => this.wake());
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      const row = (await client.query<{ channel: string }>(`SELECT ${CHANGE_CHANNEL_SQL} AS channel`)).rows[0];
      await client.query(`LISTEN "${row?.channel ?? ''}"`);
      this.retryMs = RETRY_MIN_MS;
    } catch (error) {
      this.lost(client, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private wake(): void {
    for (const wake of this.wakers) wake();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.options.onError?.(error);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.start().then(
        () => this.wake(),
        () => undefined, // start() scheduled the next attempt
      );
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}
