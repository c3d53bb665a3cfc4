import type { Agent } from 'undici';
import type { Logger } from '../logging.ts';
import type { DeliveryRecord, Store } from '../store/index.ts';
import { DELIVERY_LOG_SIZE } from './webhook-service.ts';
import { outcomeOf, sendAttempt } from './delivery-attempt.ts';
import { FANOUT_BATCH, fanOutBatch } from './fanout.ts';
import { createDeliveryAgent } from './safe-dispatcher.ts';

export interface WebhookWorkerOptions {
  allowPrivateUrls: boolean;
  pollIntervalMs?: number;
  timeoutMs?: number;
  /** Deliveries in flight on this instance at once. */
  maxInFlight?: number;
  /** Deliveries of one webhook in flight at once, so a slow receiver cannot take every slot. */
  perWebhook?: number;
  now?: () => number;
}

/**
 * Consumes the outbox for webhooks: fans events out into durable delivery rows, then claims due
 * deliveries (a lease that expires if this process dies, so another attempt follows with the same
 * delivery id) and sends them concurrently, outside any transaction: a slow or dead receiver never
 * holds a lock, blocks mutations or delays other webhooks.
 */
export class WebhookWorker {
  private readonly store: Store;
  private readonly log: Logger;
  private readonly agent: Agent;
  private readonly pollIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly maxInFlight: number;
  private readonly perWebhook: number;
  private readonly now: () => number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perWebhookCount = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** The last claim filled every free slot: more may be due, so a finished attempt starts a pass. */
  private backlog = false;

  constructor(store: Store, log: Logger, options: WebhookWorkerOptions) {
    this.store = store;
    this.log = log;
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxInFlight = options.maxInFlight ?? 16;
    this.perWebhook = options.perWebhook ?? 2;
    this.now = options.now ?? Date.now;
    this.agent = createDeliveryAgent(options.allowPrivateUrls, this.timeoutMs);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.pollIntervalMs);
    this.timer.unref();
  }

  /** Stops polling and waits for the attempts under way, so their outcome is recorded. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.allSettled([...this.inFlight.values()]);
    await this.agent.close();
  }

  /** One pass: fan out new events, start due deliveries. Passes never overlap. */
  tick(): Promise<void> {
    this.ticking ??= this.pass()
      .catch((error: unknown) => this.log.error({ err: error }, 'webhook worker pass failed; retrying at the next tick'))
      .finally(() => {
        this.ticking = undefined;
      });
    return this.ticking;
  }

  /** Resolves once every delivery started so far has finished its attempt. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private async pass(): Promise<void> {
    const now = () => new Date(this.now()).toISOString();
    while ((await this.store.transaction((tx) => fanOutBatch(tx, now()))) === FANOUT_BATCH);
    const capacity = this.maxInFlight - this.inFlight.size;
    if (capacity <= 0) return;
    const busy = [...this.perWebhookCount].filter(([, count]) => count >= this.perWebhook).map(([id]) => id);
    const lease = new Date(this.now() + this.timeoutMs + 5_000).toISOString();
    const claimed = await this.store.transaction((tx) => tx.deliveries.claimDue(now(), lease, capacity, busy));
    this.backlog = claimed.length === capacity;
    for (const delivery of claimed) this.begin(delivery);
  }

  private begin(delivery: DeliveryRecord): void {
    this.perWebhookCount.set(delivery.webhookId, (this.perWebhookCount.get(delivery.webhookId) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) => this.log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery bookkeeping failed'))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        const left = (this.perWebhookCount.get(delivery.webhookId) ?? 1) - 1;
        if (left <= 0) this.perWebhookCount.delete(delivery.webhookId);
        else this.perWebhookCount.set(delivery.webhookId, left);
        if (this.backlog && this.timer) void this.tick();
      });
    this.inFlight.set(delivery.id, attempt);
  }

  private async attempt(delivery: DeliveryRecord): Promise<void> {
    const webhook = await this.store.webhooks.findById(delivery.webhookId);
    if (!webhook) return; // deleted meanwhile: its deliveries went with it
    if (!webhook.active) {
      await this.store.deliveries.cancelPending(webhook.id, new Date(this.now()).toISOString());
      return;
    }
    const result = await sendAttempt(webhook, delivery, this.agent, this.timeoutMs, Math.floor(this.now() / 1000));
    const outcome = outcomeOf(delivery, result, this.now());
    this.log.info(
      {
        webhookId: webhook.id,
        deliveryId: delivery.id,
        event: delivery.event,
        attempt: outcome.attempts,
        statusCode: result.statusCode,
        outcome: outcome.status,
        ...(result.error ? { error: result.error } : {}),
      },
      'webhook delivery attempt',
    );
    const at = new Date(this.now()).toISOString();
    await this.store.transaction(async (tx) => {
      await tx.deliveries.recordAttempt(delivery.id, outcome, at);
      if (outcome.status !== 'pending') await tx.deliveries.trim(webhook.id, DELIVERY_LOG_SIZE);
    });
  }
}
