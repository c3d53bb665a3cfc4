import type { Agent } from 'undici';
import type { Logger } from '../logging.ts';
import type { DeliveryRecord, Store } from '../store/index.ts';
import type { AttemptOutcome } from '../store/repos/webhook-deliveries.ts';
import { DELIVERY_LOG_SIZE } from './webhook-service.ts';
import { outcomeOf, sendAttempt } from './delivery-attempt.ts';
import { FANOUT_BATCH, fanOutBatch, pruneFannedOut } from './fanout.ts';
import { RetentionPruner, type RetentionTiming } from '../lifecycle/retention-pruner.ts';
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

/** How long fanned-out events stay in the outbox, and how often they are pruned. */
export const OUTBOX_RETENTION: RetentionTiming = { retentionMs: 24 * 60 * 60_000, pruneIntervalMs: 60 * 60_000 };

interface Finished {
  delivery: DeliveryRecord;
  outcome: AttemptOutcome;
}

/**
 * Consumes the outbox for webhooks: fans events out into durable delivery rows, then claims due
 * deliveries (a lease that expires if this process dies, so another attempt follows with the same
 * delivery id) and sends them concurrently, outside any transaction: a slow or dead receiver never
 * holds a lock, blocks mutations or takes more than its share of slots. Outcomes are recorded in
 * batches, so the bookkeeping of many deliveries costs few write transactions.
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
  private readonly pruner: RetentionPruner;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perWebhookCount = new Map<string, number>();
  private finished: Finished[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private rerun = false;

  constructor(store: Store, log: Logger, options: WebhookWorkerOptions) {
    this.store = store;
    this.log = log;
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxInFlight = options.maxInFlight ?? 32;
    this.perWebhook = options.perWebhook ?? 8;
    this.now = options.now ?? Date.now;
    this.agent = createDeliveryAgent(options.allowPrivateUrls, this.timeoutMs);
    this.pruner = new RetentionPruner(
      'outbox',
      (cutoff, limit) => pruneFannedOut(store, cutoff, limit),
      log,
      OUTBOX_RETENTION,
      this.now,
    );
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.pollIntervalMs);
    this.timer.unref();
    this.pruner.start();
  }

  /** Stops polling, waits for the attempts under way and records their outcomes. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.pruner.stop();
    await this.ticking;
    await Promise.allSettled([...this.inFlight.values()]);
    await this.flush().catch((error: unknown) => this.log.error({ err: error }, 'could not record webhook outcomes at shutdown'));
    await this.agent.close();
  }

  /**
   * One pass: record finished attempts, fan out new events, start due deliveries. Passes never
   * overlap; a call during a pass makes it run once more.
   */
  tick(): Promise<void> {
    if (this.ticking) {
      this.rerun = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.rerun = false;
        await this.pass();
      } while (this.rerun);
    })()
      .catch((error: unknown) => this.log.error({ err: error }, 'webhook worker pass failed; retrying at the next tick'))
      .finally(() => {
        this.ticking = undefined;
      });
    return this.ticking;
  }

  /** Deletes fanned-out events older than the retention now (it also happens every `pruneIntervalMs`). */
  pruneOutbox(): Promise<number> {
    return this.pruner.prune();
  }

  /** Resolves once every delivery started so far has finished and its outcome is recorded. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
    await this.tick();
  }

  private async pass(): Promise<void> {
    const now = () => new Date(this.now()).toISOString();
    await this.flush();
    while ((await this.store.transaction((tx) => fanOutBatch(tx, now()))) === FANOUT_BATCH);
    const capacity = this.maxInFlight - this.inFlight.size;
    if (capacity <= 0) return;
    const busy = [...this.perWebhookCount].filter(([, count]) => count >= this.perWebhook).map(([id]) => id);
    const lease = new Date(this.now() + this.timeoutMs + 5_000).toISOString();
    const claimed = await this.store.transaction((tx) => tx.deliveries.claimDue(now(), lease, capacity, busy));
    for (const delivery of claimed) this.begin(delivery);
  }

  /** Records the outcomes of finished attempts in one transaction and trims each webhook's log once. */
  private async flush(): Promise<void> {
    if (this.finished.length === 0) return;
    const batch = this.finished;
    this.finished = [];
    const at = new Date(this.now()).toISOString();
    try {
      await this.store.transaction(async (tx) => {
        for (const { delivery, outcome } of batch) await tx.deliveries.recordAttempt(delivery.id, outcome, at);
        const done = new Set(batch.filter(({ outcome }) => outcome.status !== 'pending').map(({ delivery }) => delivery.webhookId));
        for (const webhookId of done) await tx.deliveries.trim(webhookId, DELIVERY_LOG_SIZE);
      });
    } catch (error) {
      this.finished.unshift(...batch);
      throw error;
    }
  }

  private begin(delivery: DeliveryRecord): void {
    this.perWebhookCount.set(delivery.webhookId, (this.perWebhookCount.get(delivery.webhookId) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) => this.log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        const left = (this.perWebhookCount.get(delivery.webhookId) ?? 1) - 1;
        if (left <= 0) this.perWebhookCount.delete(delivery.webhookId);
        else this.perWebhookCount.set(delivery.webhookId, left);
        // Record it and fill the freed slot now rather than at the next poll.
        if (this.timer) void this.tick();
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
    this.finished.push({ delivery, outcome });
  }
}
