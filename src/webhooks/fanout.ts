import type { Repositories, Store, StoredOutboxEvent, WebhookRecord } from '../store/index.ts';
import { newId } from '../new-id.ts';
import { TimeSlices } from '../time-slices.ts';

export const FANOUT_CURSOR = 'webhooks';
export const FANOUT_BATCH = 500;

/**
 * Turns outbox events into pending deliveries, one per matching webhook: active, same project and
 * dataset, subscribed to the event, and created before the event happened. Runs in the caller's
 * transaction with the cursor row locked, so one instance at a time fans out and each event is
 * fanned out once. Resolves to the number of events read (FANOUT_BATCH means: call again).
 */
export async function fanOutBatch(tx: Repositories, now: string): Promise<number> {
  const position = await tx.cursors.claim(FANOUT_CURSOR);
  const events = await tx.outbox.after(position, FANOUT_BATCH);
  if (events.length === 0) return 0;
  const webhooksOf = new Map<string, Promise<WebhookRecord[]>>();
  // A batch is up to 500 events times 20 webhooks of single-row inserts: other requests get turns.
  const slices = new TimeSlices();
  for (const event of events) {
    await slices.pause();
    const key = `${event.projectId}\u0000${event.dataset}`;
    let candidates = webhooksOf.get(key);
    if (!candidates) {
      candidates = tx.webhooks.activeFor(event.projectId, event.dataset);
      webhooksOf.set(key, candidates);
    }
    for (const webhook of await candidates) {
      if (!subscribed(webhook, event)) continue;
      await tx.deliveries.enqueue({
        id: newId(),
        webhookId: webhook.id,
        outboxSeq: event.position.seq,
        event: event.event,
        payload: event.payload,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        statusCode: null,
        responseBody: null,
        error: null,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  await tx.cursors.advance(FANOUT_CURSOR, events[events.length - 1]!.position);
  return events.length;
}

/**
 * Deletes up to `limit` outbox events that were fanned out already and written before `cutoff`:
 * their deliveries hold what they need, and nothing else reads the outbox. Resolves to how many.
 */
export async function pruneFannedOut(store: Store, cutoff: string, limit: number): Promise<number> {
  return store.outbox.prune(await store.cursors.position(FANOUT_CURSOR), cutoff, limit);
}

function subscribed(webhook: WebhookRecord, event: StoredOutboxEvent): boolean {
  return webhook.events.includes(event.event) && webhook.createdAt <= event.createdAt;
}
